/**
 * `local: true` on a shared Postgres database (seed 002): each server keeps its own
 * queue (runs are executed by that server's workers only) and ids do not deduplicate
 * across servers; the multi-server storage check refuses global workflows without
 * shared state, and accepts them on Postgres.
 */
import { afterAll, describe, expect, it } from "vitest";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/store.js";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { testDatabase } from "../helpers/postgres.js";
import { eventually } from "../helpers/tmp.js";

const LOCAL = `
import { defineWorkflow } from "sluice";
export default defineWorkflow<{ n: number }>("warm-cache", {
  local: true,
  handler: async (p, ctx) => ctx.run("where", () => ({ n: p.n, server: process.env.SLUICE_SERVER_NAME })),
});
`;
const GLOBAL = `
import { defineWorkflow } from "sluice";
export default defineWorkflow("report", { handler: async () => "ok" });
`;

const stores: PostgresStore[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

describe("local: true workflows on several servers", () => {
  it("keeps each server's queue: runs execute on the server that enqueued them, ids scoped per server", async () => {
    const url = await testDatabase("local");
    const root = makeProject({ "workflows/warm.ts": LOCAL, "workflows/report.ts": GLOBAL });
    const store = openPostgresStore(url);
    stores.push(store);
    const on = (server: string) => ({ SLUICE_DATABASE_URL: url, SLUICE_SERVER_NAME: server });
    const workers = ["a", "b"].map((s) => spawnSluice(["worker", "--quiet"], root, on(s)));
    const servers = ["a", "b"].map((s) => spawnSluice(["server", "--port", "0", "--servers", "2"], root, on(s)));
    await Promise.all([...workers, ...servers].map((p) => p.waitFor(/ready/, 30_000)));
    expect(servers[0]!.output()).toMatch(/server name a/);

    for (const s of ["a", "b", "a"]) {
      const p = spawnSluice(["enqueue", "warm-cache", '{"n":1}', "--id", "warm-1"], root, on(s));
      expect(await p.exited).toBe(0);
    }
    await eventually(
      async () => (await store.countRuns({ workflow: "warm-cache", status: "succeeded" })) === 2,
      20_000,
    );
    const runs = (await store.listRuns({ workflow: "warm-cache" }))
      .map((r) => [r.id, r.queue, JSON.parse(r.result!).server])
      .sort();
    expect(runs).toEqual([
      ["warm-1@a", "default@a", "a"],
      ["warm-1@b", "default@b", "b"],
    ]);
    // Read commands take the same setting.
    const list = spawnSluice(["runs", "--workflow", "warm-cache", "--json"], root, { SLUICE_DATABASE_URL: url });
    expect(await list.exited).toBe(0);
    expect((JSON.parse(list.output()) as Array<{ id: string }>).map((r) => r.id).sort()).toEqual([
      "warm-1@a",
      "warm-1@b",
    ]);
    const show = spawnSluice(["show", "warm-1@b", "--json", "--db", url], root);
    expect(await show.exited).toBe(0);
    expect(show.output()).toMatch(/"status": "succeeded"/);
    for (const p of [...workers, ...servers]) p.proc.kill("SIGTERM");
    await Promise.all([...workers, ...servers].map((p) => p.exited));
  }, 60_000);

  it("refuses to start a multi-server setup with global workflows and no shared database", async () => {
    const root = makeProject({ "workflows/warm.ts": LOCAL, "workflows/report.ts": GLOBAL });
    const mixed = spawnSluice(["server", "--port", "0", "--servers", "2"], root);
    expect(await mixed.exited).toBe(1);
    expect(mixed.output()).toMatch(
      /mixes local workflows \(warm-cache\) with global ones \(report\), so it needs shared workflow state: set SLUICE_DATABASE_URL/,
    );

    const allLocal = makeProject({ "workflows/warm.ts": LOCAL });
    const ok = spawnSluice(["server", "--port", "0", "--servers", "2"], allLocal);
    await ok.waitFor(/ready/, 30_000);
    ok.proc.kill("SIGTERM");
    expect(await ok.exited).toBe(0);
  }, 60_000);

  it("refuses a multi-server setup whose sluice.json starts worker commands (Go) without a shared database", async () => {
    // The Go worker registers its workflows after the check, so a project of Go workflows counted none.
    const root = makeProject({
      "sluice.json": JSON.stringify({ workers: [{ command: "exec sleep 60", group: "go" }] }),
    });
    const sqlite = spawnSluice(["server", "--port", "0", "--servers", "2"], root);
    expect(await sqlite.exited).toBe(1);
    expect(sqlite.output()).toMatch(
      /2-server setup starts worker commands \(\[go\] exec sleep 60\) whose workflows have no local opt-out, so it needs shared workflow state: set SLUICE_DATABASE_URL/,
    );
    expect(sqlite.output()).not.toMatch(/worker command \[go\]:/);
    const url = await testDatabase("localcmd");
    const pg = spawnSluice(["server", "--port", "0", "--servers", "2"], root, { SLUICE_DATABASE_URL: url });
    await pg.waitFor(/server \d+ ready/, 30_000);
    pg.proc.kill("SIGTERM");
    expect(await pg.exited).toBe(0);
  }, 60_000);

  it("refuses a multi-server setup of Python workflows (on the worker protocol) without a shared database", async () => {
    // Published for the Python worker rather than registered, they were not counted: two servers started.
    const root = makeProject({
      "f/etl.py":
        "from wmill import step, workflow\n\n@workflow\nasync def main(n: int = 1):\n    return await step('a', lambda: n)\n",
    });
    const sqlite = spawnSluice(["server", "--port", "0", "--servers", "2"], root);
    expect(await sqlite.exited).toBe(1);
    expect(sqlite.output()).toMatch(/2-server setup has global workflows \(f\/etl\) but no shared workflow state/);
  }, 60_000);
});
