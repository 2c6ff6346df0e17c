/**
 * Out-of-range times: refused with INVALID_TIME / INVALID_DURATION before anything is
 * stored, and a bad value already in the database (written by hand) never makes a
 * read fail, in the CLI (child processes) or the HTTP API.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { startHarness } from "../http/harness.js";

const FILES = {
  "workflows/later.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("later", { handler: async (_p, ctx) => ctx.run("one", () => 1) });`,
  "workflows/forever.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("forever", { handler: async (_p, ctx) => { await ctx.sleep("x", 1e300); return "woke"; } });`,
};

async function sluice(root: string, ...args: string[]): Promise<{ code: number | string; out: string }> {
  const p = spawnSluice(args, root);
  const code = await p.exited;
  return { code, out: p.output() };
}

describe("out-of-range times are refused before anything is stored", () => {
  it("POST /api/runs answers 400 INVALID_TIME for runAt 1e300 or a 20-digit string, and stores nothing", async () => {
    const h = await startHarness();
    try {
      for (const runAt of [1e300, "99999999999999999999", "+275760-09-13T00:00:00.001Z"]) {
        const res = await h.call("POST", "/api/runs", {
          token: h.tokens.operate,
          body: { workflow: "hello", runAt, id: `far-${String(runAt).length}` },
        });
        expect(res.status).toBe(400);
        const body = (await res.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe("INVALID_TIME");
        expect(body.error.message).toMatch(/between 1970 and 9999/);
      }
      const list = await h.call("GET", "/api/runs", { token: h.tokens.read });
      expect(list.status).toBe(200);
      expect(((await list.json()) as { runs: unknown[] }).runs).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it("`sluice enqueue --run-at` with a far delay or a 20-digit time exits 1 with one line, storing nothing; ctx.sleep(1e300) fails the run with INVALID_DURATION", async () => {
    const root = makeProject(FILES, "sluice-time-");
    for (const at of ["+1000000000000000d", "99999999999999999999"]) {
      const r = await sluice(root, "enqueue", "later", "--run-at", at);
      expect(r.code).toBe(1);
      expect(r.out.trim().split("\n")).toHaveLength(1);
      expect(r.out).toMatch(/--run-at ".*" is not a time: .*between 1970 and 9999/);
    }
    const none = await sluice(root, "runs", "--json");
    expect(none.code).toBe(0);
    expect(JSON.parse(none.out)).toEqual([]);

    expect((await sluice(root, "enqueue", "forever", "--id", "sleeper")).code).toBe(0);
    const worker = await sluice(root, "worker", "--exit-when-idle", "--idle", "300ms");
    expect(worker.code).toBe(0);
    const shown = await sluice(root, "show", "sleeper", "--json");
    expect(shown.code).toBe(0);
    const run = JSON.parse(shown.out);
    expect(run.status).toBe("failed");
    expect(run.error).toMatchObject({ code: "INVALID_DURATION" });
    expect(run.error.message).toMatch(/1000-year limit/);
  }, 60_000);
});

describe("a stored time that is not a date never breaks a read", () => {
  it("`sluice runs`, `sluice show` (text and JSON) and GET /api/runs still answer", async () => {
    const root = makeProject(FILES, "sluice-badtime-");
    expect((await sluice(root, "enqueue", "later", "--id", "bad-times")).code).toBe(0);
    expect((await sluice(root, "worker", "--exit-when-idle", "--idle", "300ms")).code).toBe(0);
    // What an older version (or a hand edit) could have left in the file.
    const db = new Database(join(root, ".sluice", "sluice.db"));
    db.prepare(
      "UPDATE runs SET created_at = 1e300, ready_at = 1e300, started_at = -1e300, finished_at = 1e300 WHERE id = 'bad-times'",
    ).run();
    db.prepare("UPDATE steps SET started_at = 1e300, wake_at = 1e300 WHERE run_id = 'bad-times'").run();
    db.prepare(
      "INSERT INTO logs (run_id, step_key, attempt, level, message, ts) VALUES ('bad-times', NULL, 1, 'info', 'from the future', 1e300)",
    ).run();
    db.close();

    const runs = await sluice(root, "runs");
    expect(runs.code).toBe(0);
    expect(runs.out).toMatch(/bad-times\s+later\s+✓ succeeded\s+1\/3\s+invalid time \(1e\+300\)/);
    const runsJson = await sluice(root, "runs", "--json");
    expect(runsJson.code).toBe(0);
    expect(JSON.parse(runsJson.out)[0]).toMatchObject({ id: "bad-times", createdAt: null, finishedAt: null });
    const show = await sluice(root, "show", "bad-times");
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/created\s+invalid time \(1e\+300\)/);
    expect(show.out).toMatch(/from the future/);
    const showJson = await sluice(root, "show", "bad-times", "--json");
    expect(showJson.code).toBe(0);
    expect(JSON.parse(showJson.out).steps[0]).toMatchObject({ key: "one", startedAt: null, wakeAt: null });
    expect(runs.out + show.out).not.toMatch(/RangeError/);

    const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root);
    await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
    const url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
    const list = await fetch(`${url}/api/runs`);
    expect(list.status).toBe(200);
    expect(((await list.json()) as { runs: Array<{ id: string }> }).runs.map((r) => r.id)).toContain("bad-times");
    const one = await fetch(`${url}/api/runs/bad-times`);
    expect(one.status).toBe(200);
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 60_000);
});
