/**
 * Many servers and workers on one Postgres database, as real processes: 3 workers
 * and 2 servers run 2,000 workflows with no overlapping claims; a scheduler leader
 * killed with SIGKILL is replaced without losing or doubling a cron tick; all of
 * Sluice's connections terminated mid-run (`pg_terminate_backend`) and everything
 * still finishes once.
 */
import { afterAll, describe, expect, it } from "vitest";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/store.js";
import type { EnqueueRequest } from "../../src/store/types.js";
import { spawnSluice, type SluiceProcess } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { sql, testDatabase, withDatabase } from "../helpers/postgres.js";
import { eventually } from "../helpers/tmp.js";

const MANY = `
import { defineWorkflow } from "sluice";
export default defineWorkflow<{ i: number }>("many", {
  handler: async (p, ctx) => {
    const a = await ctx.run("a", () => p.i * 2);
    const b = await ctx.run("b", () => a + 1);
    return { i: p.i, b };
  },
});
`;
const TICK = `
import { defineWorkflow } from "sluice";
export default defineWorkflow("tick", { schedule: "* * * * *", handler: async () => "ticked" });
`;

const stores: PostgresStore[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

/** A fresh database (audited claims) and a project using it. */
async function setup(files: Record<string, string>) {
  const base = await testDatabase("multi");
  const url = withDatabase(base, new URL(base).pathname.slice(1), { audit_claims: "true" });
  const root = makeProject(files);
  const store = openPostgresStore(url);
  stores.push(store);
  await store.ready();
  const env = { SLUICE_DATABASE_URL: url };
  const worker = () => spawnSluice(["worker", "--quiet", "--concurrency", "50", "--lease", "5s"], root, env);
  const server = () => spawnSluice(["server", "--scheduler-tick", "100ms", "--port", "0"], root, env);
  return { url, root, store, env, worker, server };
}

function requests(n: number, offset = 0): EnqueueRequest[] {
  return Array.from({ length: n }, (_, k) => ({
    id: `many-${offset + k}`,
    dedupe: true,
    workflow: "many",
    queue: "default",
    payload: JSON.stringify({ i: offset + k }),
    maxAttempts: 5,
    backoff: { base: 50, max: 500 },
  }));
}

async function enqueueAll(store: PostgresStore, reqs: EnqueueRequest[]): Promise<void> {
  for (let i = 0; i < reqs.length; i += 500) {
    const results = await store.commit(
      reqs.slice(i, i + 500).map((request) => ({ verb: "enqueue" as const, request })),
    );
    expect(results.every((r) => r.ok)).toBe(true);
  }
}

/** Pairs of claims on one run whose lease intervals overlap (the claim log is on the database clock). */
async function overlappingClaims(url: string): Promise<number> {
  const [row] = await sql<{ n: number }>(
    url,
    `SELECT count(*)::int AS n FROM claim_log a JOIN claim_log b ON a.run_id = b.run_id AND a.token < b.token
     WHERE b.claimed_at < COALESCE(a.released_at, 9223372036854775807)`,
  );
  return row!.n;
}

async function stopAll(procs: SluiceProcess[]): Promise<void> {
  for (const p of procs) if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill("SIGTERM");
  await Promise.all(procs.map((p) => p.exited));
}

describe("several servers and workers on one Postgres database", () => {
  it("3 workers and 2 servers run 2,000 workflows once each, with no overlapping claims", async () => {
    const { url, store, root, env, worker, server } = await setup({ "workflows/many.ts": MANY });
    const servers = [server(), server()];
    const workers = [worker(), worker(), worker()];
    await Promise.all([...servers, ...workers].map((p) => p.waitFor(/ready/, 30_000)));
    await enqueueAll(store, requests(2_000));
    // The same id enqueued by two processes at once makes one run.
    const dup = [
      spawnSluice(["enqueue", "many", '{"i":-1}', "--id", "same-id"], root, env),
      spawnSluice(["enqueue", "many", '{"i":-1}', "--id", "same-id"], root, env),
    ];
    expect(await Promise.all(dup.map((p) => p.exited))).toEqual([0, 0]);
    await eventually(async () => (await store.countRuns({ status: "succeeded" })) === 2_001, 120_000, 250);
    await stopAll([...workers, ...servers]);

    expect(await store.countRuns({})).toBe(2_001);
    const perWorker = await sql<{ worker: string; n: number }>(
      url,
      "SELECT worker, count(*)::int AS n FROM claim_log GROUP BY worker",
    );
    expect(perWorker.length).toBeGreaterThanOrEqual(2);
    expect(await overlappingClaims(url)).toBe(0);
    const [steps] = await sql<{ n: number }>(url, "SELECT count(*)::int AS n FROM steps");
    expect(steps!.n).toBe(2_001 * 2);
    const run = (await store.getRun("many-1234"))!;
    expect(JSON.parse(run.result!)).toEqual({ i: 1234, b: 2469 });
  }, 180_000);

  it("replaces a scheduler leader killed with SIGKILL; every cron tick fires exactly once", async () => {
    const { url, store, server } = await setup({ "workflows/tick.ts": TICK });
    const servers = [server(), server()];
    await Promise.all(servers.map((p) => p.waitFor(/ready/, 30_000)));
    const leaderOf = () =>
      eventually(
        () =>
          servers.find(
            (p) => p.proc.exitCode === null && p.proc.signalCode === null && /scheduler: leader/.test(p.output()),
          ),
        15_000,
      );
    const base = Date.parse("2026-01-01T00:00:00Z");
    const ticks: number[] = [];
    const fire = async (k: number) => {
      const at = base + k * 1_000;
      ticks.push(at);
      await sql(url, "UPDATE schedules SET next_at = $1 WHERE workflow = 'tick'", [at]);
      return at;
    };
    const fired = (at: number) =>
      eventually(async () => (await store.getRun(`cron:tick:${new Date(at).toISOString()}`)) !== null, 20_000);
    for (let k = 0; k < 3; k++) await fired(await fire(k));

    const first = await leaderOf();
    // Kill the leader, then make a tick due: only the standby can fire it.
    first.proc.kill("SIGKILL");
    expect(await first.exited).toBe("SIGKILL");
    const killedAt = Date.now();
    await fired(await fire(3));
    const takeoverMs = Date.now() - killedAt;
    const second = await leaderOf();
    expect(second).not.toBe(first);
    expect(takeoverMs).toBeLessThan(10_000);
    for (let k = 4; k < 7; k++) await fired(await fire(k));

    await stopAll(servers);
    const ids = (await store.listRuns({ workflow: "tick", limit: 1_000 })).map((r) => r.id);
    for (const at of ticks)
      expect(ids.filter((id) => id === `cron:tick:${new Date(at).toISOString()}`)).toHaveLength(1);
    // Anything else is a natural minute tick of the schedule, each at most once.
    const others = ids.filter((id) => !ticks.some((at) => id === `cron:tick:${new Date(at).toISOString()}`));
    expect(new Set(others).size).toBe(others.length);
    expect(others.every((id) => /:00\.000Z$/.test(id))).toBe(true);
  }, 120_000);

  it("finishes every run once after pg_terminate_backend on all Sluice connections mid-run", async () => {
    const { url, store, worker, server } = await setup({ "workflows/many.ts": MANY });
    const procs = [server(), worker(), worker()];
    await Promise.all(procs.map((p) => p.waitFor(/ready/, 30_000)));
    const terminate = () =>
      sql(
        url,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'sluice' AND pid <> pg_backend_pid()",
      );
    await enqueueAll(store, requests(600));
    await eventually(async () => (await store.countRuns({ status: "succeeded" })) >= 100, 60_000, 20);
    expect((await terminate()).length).toBeGreaterThanOrEqual(3);
    await enqueueAll(store, requests(300, 600));
    // Again, once the processes have reconnected.
    await eventually(async () => (await terminate()).length >= 1, 15_000);
    await eventually(async () => (await store.countRuns({ status: "succeeded" })) === 900, 60_000, 250).catch(
      async (err) => {
        const statuses = await sql(url, "SELECT status, count(*)::int AS n FROM runs GROUP BY status");
        throw new Error(
          `${err.message}; runs: ${JSON.stringify(statuses)}; output:\n${procs.map((p) => p.output().slice(-3000)).join("\n----\n")}`,
        );
      },
    );
    // The workers listen again (LISTEN re-subscribed on new connections).
    await eventually(
      async () =>
        (
          await sql<{ n: number }>(url, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN %'")
        )[0]!.n >= 2,
      15_000,
    );
    await stopAll(procs);
    expect(await store.countRuns({})).toBe(900);
    expect(await overlappingClaims(url)).toBe(0);
    const [steps] = await sql<{ n: number }>(url, "SELECT count(*)::int AS n FROM steps");
    expect(steps!.n).toBe(900 * 2);
    for (const p of procs) expect(p.output()).not.toMatch(/unhandled|uncaught|crashed the executor/i);
  }, 180_000);
});
