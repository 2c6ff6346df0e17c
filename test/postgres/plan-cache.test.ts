/**
 * Statements a one-step run makes on Postgres keep one plan (issue 15, W4's latency): Postgres
 * plans a named statement for its values five times, then keeps the plan made for any values
 * when that one is no dearer. For a statement over arrays, that plan expects 10 rows, dearer
 * than one made for a single run, so each one-run statement was planned again (≈ 0.3 ms each);
 * a `LIMIT` of the array's length makes it expect one (`enqueue.ts`, `lease-fence.ts`).
 */
import { afterAll, describe, expect, it } from "vitest";
import pg from "pg";
import { openPostgresStore } from "../../src/store/postgres/store.js";
import { checkpointsAndEnds, saveAndEndStatement } from "../../src/store/postgres/checkpoints-and-ends.js";
import { insertRuns } from "../../src/store/postgres/enqueue.js";
import { testDatabase, withDatabase } from "../helpers/postgres.js";
import { enqueueRequest } from "../helpers/requests.js";

const url = await testDatabase("plans");
const database = new URL(url).pathname.slice(1);
const open: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  while (open.length) await open.pop()!.close();
});

const RUNS = 8;

const req = (id: string) => enqueueRequest(id);

/** A client on `schema`, closed after the test. */
async function client(schema: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
  await c.connect();
  open.push({ close: () => c.end() });
  return c;
}

/** How many times the session's statement `name` ran with a plan for its values, and with the kept one. */
async function plans(c: pg.Client, name: string | undefined): Promise<{ custom: number; generic: number }> {
  const { rows } = await c.query<{ generic_plans: string; custom_plans: string }>(
    "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1",
    [name],
  );
  return { custom: Number(rows[0]!.custom_plans), generic: Number(rows[0]!.generic_plans) };
}

describe("Postgres statements of one run keep their plan", () => {
  it("a one-run enqueue", async () => {
    const store = openPostgresStore(withDatabase(url, database, { schema: "enq" }), { pollMs: 60_000 });
    open.push(store);
    await store.ready();
    const c = await client("enq");
    let name: string | undefined;
    const statements = {
      query: (config: pg.QueryConfig) => {
        name = config.name;
        return c.query(config);
      },
    } as never;
    for (let i = 0; i < RUNS; i++) {
      const [outcome] = await insertRuns(statements, [{ req: req(`e-${i}`) }], false, {
        channel: "plans_test",
        payload: "x",
        notify: true,
      });
      expect(outcome).toMatchObject({ created: true });
    }
    expect(await store.getRun(`e-${RUNS - 1}`)).toMatchObject({ status: "pending" });
    expect(await plans(c, name)).toEqual({ custom: 5, generic: RUNS - 5 });
  });

  it("a one-run checkpoint and outcome", async () => {
    const store = openPostgresStore(withDatabase(url, database, { schema: "single" }), { pollMs: 60_000 });
    open.push(store);
    await store.ready();
    await store.commit(
      Array.from({ length: RUNS }, (_, i) => ({ verb: "enqueue" as const, request: req(`one-${i}`) })),
    );
    const claimed = await store.claim({ workerId: "w", limit: RUNS, leaseMs: 30_000, workflows: ["wf"] });
    expect(claimed).toHaveLength(RUNS);
    const c = await client("single");
    let name: string | undefined;
    for (const { run, token } of claimed) {
      const lease = { runId: run.id, token };
      const { statement, answer } = saveAndEndStatement(
        checkpointsAndEnds([
          {
            verb: "saveSteps",
            lease,
            steps: [{ key: "only", kind: "step", target: null, status: "done", value: "1", position: 0 }],
          },
          { verb: "complete", lease, outcome: { status: "succeeded", result: "1" }, claimed: run },
        ])!,
        { channel: "plans_test", payload: "x" },
      );
      name = statement.name;
      const [saved, ended] = answer((await c.query(statement)).rows);
      expect(saved).toEqual({ ok: true });
      expect(ended).toMatchObject({ ok: true, finished: { status: "succeeded" } });
    }
    expect(await plans(c, name)).toEqual({ custom: 5, generic: RUNS - 5 });
  });
});
