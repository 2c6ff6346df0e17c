/**
 * The one-statement writes' fence on Postgres (`store/postgres/lease-fence.ts`) under a burst:
 * a worker checkpoints and ends 500 runs at once while the table's statistics, taken before the
 * burst, say that no run is `running`. The leases are probed one by one by id; before, a join of
 * the leases with the runs was planned on those statistics as a nested loop that compared every
 * lease with every running run (≈ 750,000 rows removed by join filters for 500 runs; ≈ 120 ms
 * a statement in the 10,000-timer burst, against ≈ 5 ms now), and a probe that also named the
 * status was planned on the status index, reading every running run for each lease.
 */
import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { openPostgresStore } from "../../src/store/postgres/store.js";
import { checkpointsAndEnds, saveAndEndStatement } from "../../src/store/postgres/checkpoints-and-ends.js";
import { upsertSteps } from "../../src/store/postgres/checkpoints.js";
import { completionParams, FINISH_ALONE } from "../../src/store/postgres/finish.js";
import type { Command } from "../../src/store/types.js";
import { testDatabase, withDatabase } from "../helpers/postgres.js";
import { enqueueRequest } from "../helpers/requests.js";

const url = await testDatabase("fence");
const database = new URL(url).pathname.slice(1);
const SCHEMA = "burst";
const store = openPostgresStore(withDatabase(url, database, { schema: SCHEMA }), { pollMs: 60_000 });
afterAll(() => store.close());

const BURST = 500;

const req = (id: string) => enqueueRequest(id);

/** Runs `fn` with a client on the store's schema. */
async function withClient<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url, options: `-c search_path=${SCHEMA}` });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** `value` as an SQL literal (strings, numbers, nulls, and flat arrays of them). */
function literal(c: pg.Client, value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (!Array.isArray(value)) return c.escapeLiteral(String(value));
  const items = value.map((v) =>
    v === null || v === undefined ? "NULL" : `"${String(v).replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`,
  );
  return c.escapeLiteral(`{${items.join(",")}}`);
}

/**
 * Rows read and thrown away in `statement`'s executed plan, by join filters and by scans' filters
 * (every loop counted), rolled back: a lease looked up by anything but its id shows here. The
 * plan is the one made for these values (`custom`), or the one Postgres keeps for every value
 * once it finds it no dearer (`generic`, as a prepared statement runs after five executions).
 */
function rowsFilteredOut(statement: pg.QueryConfig, plan: "custom" | "generic"): Promise<number> {
  return withClient(async (c) => {
    await c.query("BEGIN");
    try {
      let explain: pg.QueryConfig = {
        text: `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`,
        values: statement.values,
      };
      if (plan === "generic") {
        await c.query("SET LOCAL plan_cache_mode = force_generic_plan");
        await c.query(`PREPARE probed AS ${statement.text}`);
        const args = (statement.values ?? []).map((v) => literal(c, v)).join(", ");
        explain = { text: `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE probed(${args})` };
      }
      const { rows } = await c.query<{ "QUERY PLAN": unknown[] }>(explain);
      let removed = 0;
      const walk = (node: Record<string, unknown>): void => {
        const out = Number(node["Rows Removed by Join Filter"] ?? 0) + Number(node["Rows Removed by Filter"] ?? 0);
        removed += out * Number(node["Actual Loops"] ?? 1);
        for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
      };
      walk((rows[0]!["QUERY PLAN"][0] as { Plan: Record<string, unknown> }).Plan);
      return removed;
    } finally {
      await c.query("ROLLBACK");
    }
  });
}

/** Rows thrown away by `statement` under either plan. */
async function filteredOut(statement: pg.QueryConfig): Promise<{ custom: number; generic: number }> {
  return { custom: await rowsFilteredOut(statement, "custom"), generic: await rowsFilteredOut(statement, "generic") };
}

/** Fewer rows thrown away than the batch has runs, under both plans. */
function expectFew(out: { custom: number; generic: number }): void {
  expect(out.custom).toBeLessThan(BURST);
  expect(out.generic).toBeLessThan(BURST);
}

describe("Postgres one-statement fence under a burst", () => {
  it("probes each lease of a 500-run batch by its id instead of reading every running run for it", async () => {
    await store.ready();
    const ids = Array.from({ length: 2 * BURST }, (_, i) => `run-${String(i).padStart(4, "0")}`);
    await store.commit(ids.map((id) => ({ verb: "enqueue" as const, request: req(id) })));
    // Statistics taken while nothing runs: the planner expects next to no `running` rows.
    await withClient((c) => c.query("ANALYZE runs"));
    const claimed = await store.claim({ workerId: "w", limit: BURST, leaseMs: 30_000, workflows: ["wf"] });
    expect(claimed).toHaveLength(BURST);
    // One claim gone stale (taken over), so the fence has something to refuse.
    const stale = claimed[7]!;
    const commands: Command[] = claimed.flatMap(({ run, token }): Command[] => {
      const lease = { runId: run.id, token: run.id === stale.run.id ? token + 1 : token };
      return [
        {
          verb: "saveSteps",
          lease,
          steps: [{ key: "only", kind: "step", target: null, status: "done", value: "1", position: 0 }],
        },
        { verb: "complete", lease, outcome: { status: "succeeded", result: "1" }, claimed: run },
      ];
    });
    const batch = checkpointsAndEnds(commands)!;
    const { statement, answer } = saveAndEndStatement(batch, { channel: "fence_test", payload: "x" });
    expectFew(await filteredOut(statement));

    // The checkpoints alone take the same fence.
    let alone: pg.QueryConfig | undefined;
    await upsertSteps(
      {
        query: (config: pg.QueryConfig) => {
          alone = config;
          return Promise.resolve({ rows: [] }) as never;
        },
      },
      batch.saves.map((s) => ({ runId: s.lease.runId, steps: s.steps })),
      batch.leases,
    );
    expectFew(await filteredOut(alone!));

    // So do final outcomes alone.
    const ends = { text: FINISH_ALONE, values: [...completionParams(batch.ends).params, "fence_test", "x"] };
    expectFew(await filteredOut(ends));

    // And the statement does what it answers: every live run ended with its step, the stale one refused.
    const results = answer((await withClient((c) => c.query({ text: statement.text, values: statement.values }))).rows);
    const refused = results.filter((r) => !r.ok);
    expect(refused).toHaveLength(2);
    expect(results.filter((r) => r.ok && r.finished?.status === "succeeded")).toHaveLength(BURST - 1);
    expect((await store.getRun(stale.run.id))!.status).toBe("running");
    expect(await store.getSteps(stale.run.id)).toEqual([]);
    const other = claimed[8]!.run.id;
    expect((await store.getRun(other))!.status).toBe("succeeded");
    expect((await store.getSteps(other)).map((s) => [s.key, s.value])).toEqual([["only", "1"]]);
  });
});
