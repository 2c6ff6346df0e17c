/**
 * `sluice logs --follow` on Postgres reads each poll's lines as a range of the log's primary key
 * (or of `logs_by_run` for one run), bounded by the log's end (`Store.lastLogSeq`), and each
 * line's run by its id: the plans Postgres chooses (EXPLAIN) for the statements the store really
 * sends, with their parameters, before and after `ANALYZE`. With a workflow it used to read the
 * whole log (a sequential scan joined to a hash of the workflow's runs), or hash every run.
 */
import { afterEach, describe, expect, it } from "vitest";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/store.js";
import type { LogFilter } from "../../src/store/types.js";
import { sql, testDatabase, withDatabase } from "../helpers/postgres.js";
import { recordStatements } from "../helpers/pg-statements.js";

const url = await testDatabase("followplan");
let n = 0;
const open: PostgresStore[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

const RUNS = 20_000;
const LINES_PER_RUN = 10;

/** Runs of five workflows with ten lines each: `wf-i` has runs `r-j` with j % 5 = i. */
async function seeded(): Promise<{ store: PostgresStore; url: string }> {
  const u = withDatabase(url, new URL(url).pathname.slice(1), { schema: `f${n++}` });
  const store = openPostgresStore(u, {});
  open.push(store);
  await store.ready();
  const now = Date.now();
  await sql(
    u,
    `INSERT INTO runs (id, workflow, queue, status, max_attempts, backoff_base, backoff_max, claims, root_id,
       created_at, started_at, finished_at, updated_at)
     SELECT 'r-' || i, 'wf-' || (i % 5), 'default', 'succeeded', 1, 1000, 60000, 1, 'r-' || i, $1, $1, $1, $1
     FROM generate_series(0, ${RUNS - 1}) i`,
    [now],
  );
  await sql(
    u,
    `INSERT INTO logs (run_id, attempt, level, message, ts)
     SELECT 'r-' || (i / ${LINES_PER_RUN}), 1, 'info', 'line ' || (i % ${LINES_PER_RUN}) || ' of r-' || (i / ${LINES_PER_RUN}), $1
     FROM generate_series(0, ${RUNS * LINES_PER_RUN - 1}) i ORDER BY i`,
    [now],
  );
  return { store, url: u };
}

type PlanNode = { "Node Type": string; "Relation Name"?: string; "Index Name"?: string; Plans?: PlanNode[] };
const nodes = (p: PlanNode): PlanNode[] => [p, ...(p.Plans ?? []).flatMap(nodes)];
/** A plan's nodes in one line, for a failure's message. */
const brief = (plan: PlanNode[]) =>
  plan.map((p) => [p["Node Type"], p["Relation Name"], p["Index Name"]].filter(Boolean).join(" ")).join(" | ");

/** The plan nodes of each log read `work` sends (EXPLAIN with the parameters it sent). */
async function plansOf(u: string, work: () => Promise<unknown>): Promise<PlanNode[][]> {
  const rec = recordStatements();
  try {
    await work();
  } finally {
    rec.stop();
  }
  const reads = rec.sent.filter((s) => /FROM logs l/.test(s.text));
  const out: PlanNode[][] = [];
  for (const r of reads) {
    const [row] = await sql<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
      u,
      `EXPLAIN (FORMAT JSON) ${r.text}`,
      r.values,
    );
    out.push(nodes(row!["QUERY PLAN"][0]!.Plan));
  }
  return out;
}

/** How the plan reads `relation`: the index names of its scans, or "Seq Scan". */
const access = (plan: PlanNode[], relation: string) =>
  plan
    .filter((p) => p["Relation Name"] === relation || (p["Index Name"] ?? "").startsWith(`${relation}_`))
    .map((p) => (p["Node Type"] === "Seq Scan" ? "Seq Scan" : p["Index Name"]))
    .filter((x) => x !== undefined);

describe.each([false, true])("sluice logs --follow's reads on Postgres (analyzed: %s)", (analyzed) => {
  it("read a short range of the log's primary key whatever the filter, each run by its id", async () => {
    const { store, url: u } = await seeded();
    if (analyzed) await sql(u, "ANALYZE");
    const head = await store.lastLogSeq();
    expect(head).toBe(RUNS * LINES_PER_RUN);
    const poll = (f: Partial<LogFilter>) => store.listLogs({ afterSeq: head - 50, upToSeq: head, limit: 1000, ...f });

    for (const f of [{}, { workflow: "wf-3" }, { workflow: "nosuch" }]) {
      const [plan, ...more] = await plansOf(u, () => poll(f));
      expect(more).toEqual([]);
      expect(
        plan!.some((p) => p["Node Type"] === "Seq Scan"),
        brief(plan!),
      ).toBe(false);
      expect(access(plan!, "logs")).toEqual(["logs_pkey"]);
      expect(access(plan!, "runs")).toEqual(["runs_id_key"]);
    }
    const [one] = await plansOf(u, () => poll({ runId: `r-${RUNS - 1}` }));
    expect(
      one!.some((p) => p["Node Type"] === "Seq Scan"),
      brief(one!),
    ).toBe(false);
    expect(access(one!, "logs")).toEqual(["logs_by_run"]);

    // The answers: the last five runs' lines, oldest first.
    const all = await poll({});
    expect(all.map((l) => l.seq)).toEqual(Array.from({ length: 50 }, (_, i) => head - 49 + i));
    const wf3 = await poll({ workflow: "wf-3" });
    expect(wf3.map((l) => l.message)).toEqual(Array.from({ length: 10 }, (_, k) => `line ${k} of r-${RUNS - 2}`));
    expect(wf3.every((l) => l.workflow === "wf-3")).toBe(true);
    expect(await poll({ workflow: "nosuch" })).toEqual([]);
  });
});
