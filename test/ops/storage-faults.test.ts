/**
 * What a worker does when the database refuses its final write: another process holds
 * the SQLite file's write lock past the busy timeout, or the disk is full. The worker
 * process stays up, says what failed (the storage error, not "lost the lease"), backs
 * off and retries, and the run ends succeeded once storage works again.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { postgresAdminUrl, sql, testDatabase } from "../helpers/postgres.js";
import { makeProject, REPO } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { mountSmallDisk, unmountSmallDisk } from "../helpers/small-disk.js";

/** The handler waits (outside any step) for a `go` file, so its only write left is `complete`. */
function gatedWorkflow(dir: string, result: string): Record<string, string> {
  return {
    "workflows/gated.ts": `import { defineWorkflow } from "sluice";
import { existsSync, writeFileSync } from "node:fs";
export default defineWorkflow("gated", {
  handler: async (_p, ctx) => {
    await ctx.run("first", () => 1);
    writeFileSync(${JSON.stringify(join(dir, "ready"))}, "");
    while (!existsSync(${JSON.stringify(join(dir, "go"))})) await new Promise((r) => setTimeout(r, 20));
    return ${result};
  },
});`,
  };
}

/**
 * Waits until run `id`'s step "first" is in the store. The body writes its `ready` flag as soon as
 * `ctx.run` returns, and a step's checkpoint is written ahead (committed while the body goes on):
 * a fault injected at `ready` could otherwise refuse that checkpoint instead of the final write.
 */
async function firstSaved(root: string, id: string, env: Record<string, string> = {}, db?: string): Promise<void> {
  await eventually(async () => {
    const show = spawnSluice(["show", id, "--json", ...(db ? ["--db", db] : [])], root, env);
    if ((await show.exited) !== 0) return false;
    return (JSON.parse(show.output()) as { steps: Array<{ key: string; status: string }> }).steps.some(
      (st) => st.key === "first" && st.status === "done",
    );
  }, 30_000);
}

async function showJson(root: string, id: string, db?: string): Promise<any> {
  const show = spawnSluice(["show", id, "--json", ...(db ? ["--db", db] : [])], root);
  expect(await show.exited).toBe(0);
  return JSON.parse(show.output());
}

describe("a final write the database refuses", () => {
  it("another process holds the write lock past the busy timeout: the worker stays up, reports SQLITE_BUSY, retries and succeeds", async () => {
    const flags = tempDir("sluice-flags-");
    const root = makeProject(gatedWorkflow(flags, `"done"`), "sluice-lock-");
    const enq = spawnSluice(["enqueue", "gated", "--id", "locked-run"], root);
    expect(await enq.exited).toBe(0);
    const worker = spawnSluice(["worker"], root);
    await eventually(() => existsSync(join(flags, "ready")), 30_000);
    await firstSaved(root, "locked-run");

    // A separate process takes the write lock and holds it longer than the 10 s busy timeout.
    const db = join(root, ".sluice", "sluice.db");
    const script = `const D = require("better-sqlite3"); const db = new D(${JSON.stringify(db)});
db.exec("BEGIN EXCLUSIVE"); console.log("locked");
setTimeout(() => { db.exec("COMMIT"); db.close(); console.log("released"); }, 13000);`;
    const locker = spawn(process.execPath, ["-e", script], { cwd: REPO, stdio: ["ignore", "pipe", "inherit"] });
    let lockerOut = "";
    locker.stdout!.on("data", (d) => (lockerOut += d));
    try {
      await eventually(() => lockerOut.includes("locked"), 10_000);
      writeFileSync(join(flags, "go"), "");
      await worker.waitFor(
        /could not record its outcome \(succeeded\): database error \(SQLITE_BUSY: database is locked\): another process holds the database lock; retrying in/,
        20_000,
      );
      expect(worker.proc.exitCode).toBeNull();
      await eventually(() => lockerOut.includes("released"), 20_000);
      await worker.waitFor(/✓ gated locked-run succeeded/, 20_000);
    } finally {
      if (locker.exitCode === null) locker.kill("SIGKILL");
    }
    expect(worker.proc.exitCode).toBeNull();
    expect(worker.output()).not.toMatch(/lost the lease|Unhandled|unhandled/);
    const shown = await showJson(root, "locked-run");
    expect(shown).toMatchObject({ status: "succeeded", attempt: 1, result: "done" });
    worker.proc.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  }, 90_000);

  it("the disk fills up mid-run (SQLITE_FULL): the worker stays up, reports it, and finishes once space is freed", async (ctx) => {
    const mnt = mountSmallDisk("3m", () => ctx.skip(), "sluice-full-");
    try {
      const flags = tempDir("sluice-flags-");
      // A result large enough that the final write must grow the WAL file.
      const root = makeProject(gatedWorkflow(flags, `"x".repeat(700_000)`), "sluice-full-project-");
      const db = join(mnt, "data", "sluice.db");
      mkdirSync(join(mnt, "data"));
      const enq = spawnSluice(["enqueue", "gated", "--id", "full-run", "--db", db], root);
      expect(await enq.exited).toBe(0);
      const worker = spawnSluice(["worker", "--db", db], root);
      await eventually(() => existsSync(join(flags, "ready")), 30_000);
      await firstSaved(root, "full-run", {}, db);
      // Fill the filesystem to the last byte.
      const filler = join(mnt, "filler");
      try {
        execFileSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=64k"], { stdio: "ignore" });
      } catch {
        // dd stops with "No space left on device": that is the point
      }
      writeFileSync(join(flags, "go"), "");
      await worker.waitFor(
        /could not record its outcome \(succeeded\): database error \(SQLITE_FULL: database or disk is full\): the disk is full: free some space; retrying in/,
        20_000,
      );
      expect(worker.proc.exitCode).toBeNull();
      rmSync(filler);
      await worker.waitFor(/✓ gated full-run succeeded/, 30_000);
      expect(worker.output()).not.toMatch(/lost the lease|Unhandled|unhandled/);
      const shown = await showJson(root, "full-run", db);
      expect(shown).toMatchObject({ status: "succeeded", attempt: 1 });
      expect(shown.result).toHaveLength(700_000);
      worker.proc.kill("SIGTERM");
      expect(await worker.exited).toBe(0);
    } finally {
      unmountSmallDisk(mnt);
    }
  }, 90_000);
});

describe("a final write Postgres refuses", () => {
  it("the database turns read-only (a failover to a standby) for longer than the store's own retries: the worker stays up, reports 25006, and succeeds once it is writable", async () => {
    const url = await testDatabase("readonly");
    const dbName = new URL(url).pathname.slice(1);
    const flags = tempDir("sluice-flags-");
    const root = makeProject(gatedWorkflow(flags, `"done"`), "sluice-pg-ro-");
    const env = { SLUICE_DATABASE_URL: url };
    const enq = spawnSluice(["enqueue", "gated", "--id", "pg-run"], root, env);
    expect(await enq.exited).toBe(0);
    const worker = spawnSluice(["worker"], root, env);
    await eventually(() => existsSync(join(flags, "ready")), 30_000);
    await firstSaved(root, "pg-run", env);
    // New sessions are read-only, and the worker's current ones are cut (as a failover does).
    const admin = postgresAdminUrl();
    const cut = `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`;
    await sql(admin, `ALTER DATABASE ${JSON.stringify(dbName)} SET default_transaction_read_only = on`);
    await sql(admin, cut, [dbName]);
    writeFileSync(join(flags, "go"), "");
    await worker.waitFor(
      /could not record its outcome \(succeeded\): database error \(25006: cannot execute [A-Z ]+ in a read-only transaction\): the database is read-only \(a standby, or default_transaction_read_only\): point Sluice at the writable primary; retrying in/,
      30_000,
    );
    // Past the store's own quick retries (a few seconds): the worker is still up and still trying.
    await new Promise((r) => setTimeout(r, 6_000));
    expect(worker.proc.exitCode).toBeNull();
    await sql(admin, `ALTER DATABASE ${JSON.stringify(dbName)} SET default_transaction_read_only = off`);
    await sql(admin, cut, [dbName]);
    await worker.waitFor(/✓ gated pg-run succeeded/, 40_000);
    expect(worker.output()).not.toMatch(/lost the lease|Unhandled|unhandled/);
    const show = spawnSluice(["show", "pg-run", "--json"], root, env);
    expect(await show.exited).toBe(0);
    expect(JSON.parse(show.output())).toMatchObject({ status: "succeeded", attempt: 1, result: "done" });
    worker.proc.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  }, 120_000);
});
