/**
 * Data tests of a slice (the seed's `// data_test`): `unique`, `not_null`,
 * `accepted_values` and `relationships`, each a DuckDB query counting the offending rows of
 * the slice (with up to {@link MAX_EXAMPLES} examples). A custom test script is one DuckDB
 * SELECT over the slice, visible as the view `slice`, returning the offending rows (dbt's
 * "singular test"): it passes when it returns none.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { sqlString } from "../assets/duckdb.js";
import { LakeError } from "./errors.js";
import { jsonRows } from "../assets/duckdb-json.js";
import { ident } from "./scan-plan.js";

/** Examples of offending values kept per failed test. */
const MAX_EXAMPLES = 5;

/** A test of a slice (structurally the pipeline's `DataTest`). */
export type SliceTest =
  | { readonly kind: "unique" | "not_null"; readonly column: string }
  | { readonly kind: "accepted_values"; readonly column: string; readonly values: readonly string[] }
  | {
      readonly kind: "relationships";
      readonly column: string;
      readonly references: { readonly asset: string; readonly column: string };
    }
  | { readonly kind: "script"; readonly path: string };

/** The outcome of one test. */
export interface TestOutcome {
  /** The test as written, e.g. `unique order_id`. */
  readonly test: string;
  readonly passed: boolean;
  /** Offending rows. */
  readonly offending: number;
  /** A few offending values. */
  readonly examples: readonly unknown[];
  /** Why the test could not run (it then fails). */
  readonly error?: string;
}

/** The tests as written in the annotation. */
function describeTest(t: SliceTest): string {
  switch (t.kind) {
    case "accepted_values":
      return `accepted_values ${t.column} = ${t.values.join(",")}`;
    case "relationships":
      return `relationships ${t.column} -> ${t.references.asset}.${t.references.column}`;
    case "script":
      return t.path;
    default:
      return `${t.kind} ${t.column}`;
  }
}

/** The offending-rows query of a built-in test over `relation` (`value` column per offending row). */
function offendingSql(t: Exclude<SliceTest, { kind: "script" }>, relation: string, referenced?: string): string {
  const c = ident(t.column);
  switch (t.kind) {
    case "not_null":
      return `SELECT NULL AS value FROM ${relation} WHERE ${c} IS NULL`;
    case "unique":
      return `SELECT ${c} AS value FROM ${relation} WHERE ${c} IN (SELECT ${c} FROM ${relation} WHERE ${c} IS NOT NULL GROUP BY ${c} HAVING count(*) > 1)`;
    case "accepted_values":
      return `SELECT ${c} AS value FROM ${relation} WHERE ${c} IS NOT NULL AND CAST(${c} AS VARCHAR) NOT IN (${t.values.map(sqlString).join(", ")})`;
    case "relationships":
      return `SELECT ${c} AS value FROM ${relation} WHERE ${c} IS NOT NULL AND ${c} NOT IN (SELECT ${ident(t.references.column)} FROM (${referenced}))`;
  }
}

/**
 * Run every test on `relation`; `resolve(asset)` gives the SELECT of a referenced asset
 * (for `relationships`).
 */
export async function runSliceTests(
  conn: DuckDBConnection,
  relation: string,
  tests: readonly SliceTest[],
  resolve: (asset: string) => Promise<string>,
  loadScript: (path: string) => Promise<string> = async (path) => {
    throw new Error(`custom data test ${path} cannot be loaded here`);
  },
): Promise<TestOutcome[]> {
  const out: TestOutcome[] = [];
  for (const t of tests) {
    const test = describeTest(t);
    if (t.kind === "script") {
      try {
        const sql = (await loadScript(t.path)).trim().replace(/;\s*$/, "");
        await conn.run(`CREATE OR REPLACE TEMP VIEW slice AS SELECT * FROM ${relation}`);
        const [count] = jsonRows(await conn.runAndReadAll(`SELECT count(*) AS n FROM (${sql})`));
        const n = Number(count!.n);
        const examples = n ? jsonRows(await conn.runAndReadAll(`SELECT * FROM (${sql}) LIMIT ${MAX_EXAMPLES}`)) : [];
        out.push({ test, passed: n === 0, offending: n, examples });
      } catch (err) {
        out.push({ test, passed: false, offending: 0, examples: [], error: (err as Error).message });
      }
      continue;
    }
    try {
      const referenced = t.kind === "relationships" ? await resolve(t.references.asset) : undefined;
      const sql = offendingSql(t, relation, referenced);
      const [count] = jsonRows(await conn.runAndReadAll(`SELECT count(*) AS n FROM (${sql})`));
      const n = Number(count!.n);
      const examples = n
        ? jsonRows(await conn.runAndReadAll(`SELECT DISTINCT value FROM (${sql}) LIMIT ${MAX_EXAMPLES}`)).map(
            (r) => r.value,
          )
        : [];
      out.push({ test, passed: n === 0, offending: n, examples });
    } catch (err) {
      out.push({ test, passed: false, offending: 0, examples: [], error: (err as Error).message });
    }
  }
  return out;
}

/** Some data tests failed, so the slice was not published. */
export class DataTestsFailedError extends LakeError {
  constructor(readonly outcomes: readonly TestOutcome[]) {
    const failed = outcomes.filter((o) => !o.passed);
    super(
      "LAKE_AUDIT_FAILED",
      `${failed.length} of ${outcomes.length} data test(s) failed, so the slice was not published (the table stays at its previous snapshot): ${outcomes
        .map(
          (o) =>
            `${o.test}: ${o.passed ? "pass" : o.error ? `error (${o.error})` : `fail, ${o.offending} row(s)${o.examples.length ? `, e.g. ${o.examples.map((e) => JSON.stringify(e)).join(", ")}` : ""}`}`,
        )
        .join("; ")}`,
    );
  }
}
