/**
 * What operators see when a module throws at import time (its file named) and when the
 * database may not be written (one clear line, no stack trace; reads still work).
 * Child processes against real files: a read-only bind mount of the project, and the
 * CLI run as another user against a file it may only read.
 */
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject, REPO } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { tempDir } from "../helpers/tmp.js";

const FILES = {
  "workflows/good.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("good", { handler: async () => "fine" });`,
  "workflows/nested/bad.ts": `import { defineWorkflow } from "sluice";
throw new Error("kaboom at import time");
export default defineWorkflow("bad", { handler: async () => 1 });`,
};

async function sluice(root: string, ...args: string[]) {
  const p = spawnSluice(args, root);
  const code = await p.exited;
  return { code, out: p.output() };
}

/** Runs the CLI as user `nobody` (uid 65534): root ignores file permissions. */
function sluiceAsNobody(cwd: string, ...args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [join(REPO, "bin", "sluice.js"), ...args], {
      cwd,
      uid: 65534,
      gid: 65534,
      env: { PATH: process.env.PATH ?? "", HOME: "/tmp" },
    });
    let out = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (out += d));
    p.on("exit", (code) => resolve({ code, out }));
  });
}

const noStack = /\n\s+at |unexpected error/;

describe("a module that throws at import time", () => {
  it("is reported with its project-relative path, and the other workflows still run", async () => {
    const root = makeProject(FILES, "sluice-import-");
    const enq = await sluice(root, "enqueue", "good", "--id", "g1");
    expect(enq.code).toBe(0);
    expect(enq.out).toMatch(
      /^warning: workflows\/nested\/bad\.ts: kaboom at import time \(thrown at import time, so its workflows are not loaded\): fix the module's top-level code and save it again$/m,
    );
    const worker = await sluice(root, "worker", "--exit-when-idle", "--idle", "300ms");
    expect(worker.code).toBe(0);
    expect(worker.out).toContain("warning: workflows/nested/bad.ts: kaboom at import time");
    expect(worker.out).toMatch(/✓ good g1 succeeded/);
  }, 60_000);
});

describe("a database this process may not write", () => {
  it("in a read-only folder: runs and show work (with a note), enqueue fails with one line naming the path", async (ctx) => {
    const root = makeProject({ "workflows/good.ts": FILES["workflows/good.ts"]! }, "sluice-ro-");
    expect((await sluice(root, "enqueue", "good", "--id", "kept")).code).toBe(0);
    const view = tempDir("sluice-ro-view-");
    try {
      execFileSync("mount", ["--bind", root, view], { stdio: "ignore" });
    } catch {
      // A read-only view of a folder needs a bind mount, which needs root (not mocked: skipped instead).
      ctx.skip();
    }
    try {
      execFileSync("mount", ["-o", "remount,ro,bind", view], { stdio: "ignore" });
      const db = join(view, ".sluice", "sluice.db");
      const runs = await sluice(view, "runs");
      expect(runs.code).toBe(0);
      expect(runs.out).toMatch(/^kept\s+good\s+… pending/m);
      expect(runs.out).toContain(
        `note: ${db} is read-only for this user: showing what it holds; commands that change runs will fail until it is writable`,
      );
      const show = await sluice(view, "show", "kept", "--json");
      expect(show.code).toBe(0);
      expect(JSON.parse(show.out.slice(show.out.indexOf("{")))).toMatchObject({ id: "kept", status: "pending" });
      const enq = await sluice(view, "enqueue", "good");
      expect(enq.code).toBe(1);
      expect(enq.out).not.toMatch(noStack);
      expect(enq.out.trim().split("\n")).toHaveLength(1);
      expect(enq.out).toContain(
        `sluice: cannot open the database ${db} for writing (SQLITE_CANTOPEN: unable to open database file): make the file and its folder writable by this user`,
      );
    } finally {
      execFileSync("umount", ["-l", view], { stdio: "ignore" });
    }
  }, 60_000);

  it("a read-only file (another user's): runs works, enqueue fails with one line saying what to do", async (ctx) => {
    if (process.getuid?.() !== 0) ctx.skip(); // switching to another user needs root
    const root = makeProject({ "workflows/good.ts": FILES["workflows/good.ts"]! }, "sluice-rofile-");
    expect((await sluice(root, "enqueue", "good", "--id", "theirs")).code).toBe(0);
    chmodSync(root, 0o755);
    chmodSync(join(root, ".sluice"), 0o777);
    mkdirSync(join(root, ".sluice", "bundles"), { recursive: true });
    chmodSync(join(root, ".sluice", "bundles"), 0o777);
    chmodSync(join(root, ".sluice", "sluice.db"), 0o444);
    const runs = await sluiceAsNobody(root, "runs");
    expect(runs.code).toBe(0);
    expect(runs.out).toMatch(/^theirs\s+good\s+… pending/m);
    const enq = await sluiceAsNobody(root, "enqueue", "good");
    expect(enq.code).toBe(1);
    expect(enq.out).not.toMatch(noStack);
    expect(enq.out.trim().split("\n")).toHaveLength(1);
    expect(enq.out).toMatch(
      /^sluice: database error \(SQLITE_READONLY: attempt to write a readonly database\): the database is read-only: make the file and its folder writable/,
    );
  }, 60_000);
});
