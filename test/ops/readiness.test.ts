/**
 * `/api/ready` of a real `sluice server` process: ready on a healthy SQLite database,
 * not ready (503, with the failed checks' reasons) once the database file cannot be
 * written, and ready again once it can.
 *
 * How the file is made unwritable: tests run as root, and root ignores permission bits,
 * so `chmod a-w` would not stop a single write. The immutable attribute does:
 * `chattr +i` makes the kernel refuse writes to the file even for root, and even
 * through descriptors the server already holds open (EPERM), which is what a disk
 * remounted read-only or a revoked volume looks like to SQLite. The database, its
 * `-wal` and its `-shm` files are made immutable, and `chattr -i` undoes it. The test
 * is skipped (with this reason) where `chattr` is missing or not permitted.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { mountSmallDisk, unmountSmallDisk } from "../helpers/small-disk.js";

/** True when this machine lets the test set the immutable attribute. */
function chattrWorks(): boolean {
  try {
    const dir = tempDir("sluice-chattr-");
    const file = join(dir, "probe");
    writeFileSync(file, "x");
    execFileSync("chattr", ["+i", file], { stdio: "ignore" });
    execFileSync("chattr", ["-i", file], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

interface Ready {
  ready: boolean;
  checks: Record<string, { ok: boolean; detail: string }>;
}

async function ready(url: string): Promise<{ status: number; body: Ready }> {
  const res = await fetch(`${url}/api/ready`);
  return { status: res.status, body: (await res.json()) as Ready };
}

describe("GET /api/ready on sluice server", () => {
  it.skipIf(!chattrWorks())(
    "turns not-ready when the database file cannot be written, and ready again when it can",
    async () => {
      const root = makeProject({
        "f/hello.ts": `import { workflow } from "windmill-client";\nexport const main = workflow(async () => "hi");`,
      });
      mkdirSync(join(root, ".sluice"), { recursive: true });
      const server = spawnSluice(["server", "--port", "0", "--scheduler-tick", "200ms", "--workers", "none"], root);
      await server.waitFor(/server \d+ ready/, 30_000);
      const url = /API and UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())![1]!;
      const db = join(root, ".sluice", "sluice.db");
      // Not the -shm file: every connection maps it into memory, and a write fault on a mapped page
      // of an immutable file is SIGBUS (the kernel's answer, no SQLite program can catch it).
      const files = [db, `${db}-wal`].filter((f) => existsSync(f));
      expect(files).toContain(db);

      // Healthy: every check passes (public: no token needed, like /api/health).
      const first = await eventually(async () => {
        const r = await ready(url);
        return r.status === 200 ? r : null;
      }, 15_000);
      expect(first.body.ready).toBe(true);
      expect(first.body.checks.database!.ok).toBe(true);
      expect(first.body.checks.write!.ok).toBe(true);
      expect(first.body.checks.scheduler!.detail).toBe("leader");
      expect(first.body.checks.lanes!.ok).toBe(true);

      try {
        execFileSync("chattr", ["+i", ...files]);
        const down = await eventually(async () => {
          const r = await ready(url);
          return r.status === 503 ? r : null;
        }, 15_000);
        expect(down.body.ready).toBe(false);
        expect(down.body.checks.write!.ok).toBe(false);
        expect(down.body.checks.write!.detail).toMatch(/SQLITE_IOERR/);
        // Liveness is unaffected: the process is alive.
        expect((await fetch(`${url}/api/health`)).status).toBe(200);
      } finally {
        execFileSync("chattr", ["-i", ...files]);
      }

      const back = await eventually(async () => {
        const r = await ready(url);
        return r.status === 200 ? r : null;
      }, 20_000);
      expect(back.body.ready).toBe(true);
      expect(back.body.checks.write!.ok).toBe(true);
      server.proc.kill("SIGTERM");
      expect(await server.exited).toBe(0);
    },
    90_000,
  );

  it("turns not-ready when the database's disk is full, and ready again once space is freed", async (ctx) => {
    const mnt = mountSmallDisk("4m", () => ctx.skip(), "sluice-ready-full-");
    try {
      const root = makeProject({
        "f/hello.ts": `import { workflow } from "windmill-client";\nexport const main = workflow(async () => "hi");`,
      });
      const db = join(mnt, "sluice.db");
      const server = spawnSluice(["server", "--port", "0", "--workers", "none", "--db", db], root);
      await server.waitFor(/server \d+ ready/, 30_000);
      const url = /API and UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())![1]!;
      expect(await eventually(async () => ((await ready(url)).status === 200 ? true : null), 15_000)).toBe(true);
      const filler = join(mnt, "filler");
      try {
        execFileSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=4k"], { stdio: "ignore" });
      } catch {
        // dd stops with "No space left on device": that is the point
      }
      const down = await eventually(async () => {
        const r = await ready(url);
        return r.status === 503 ? r : null;
      }, 15_000);
      // The probe needs new space (a small write may still commit in the reused WAL): not ready, and why.
      expect(down.body.checks.database!.ok).toBe(true);
      expect(down.body.checks.write!.ok).toBe(false);
      expect(down.body.checks.write!.detail).toMatch(/the disk is full: free some space/);
      rmSync(filler);
      const back = await eventually(async () => {
        const r = await ready(url);
        return r.status === 200 ? r : null;
      }, 15_000);
      expect(back.body.checks.write!.ok).toBe(true);
      expect(existsSync(`${db}-ready-probe`)).toBe(false);
      server.proc.kill("SIGTERM");
      expect(await server.exited).toBe(0);
    } finally {
      unmountSmallDisk(mnt);
    }
  }, 90_000);
});
