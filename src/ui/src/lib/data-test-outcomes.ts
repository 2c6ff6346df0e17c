/**
 * The data tests a managed lake write ran, as a run page lists them: from the result of a run that
 * published its slice (`tests`), or from the error of one whose tests failed (`LAKE_AUDIT_FAILED`,
 * `data.outcomes`). Stored values are read defensively: anything not shaped as an outcome is left
 * out, so an odd result can never break the page. Pure.
 */
import type { ApiRun } from "../../../http/api-types";

/** One test's outcome, as the lake's data tests report it. */
export interface DataTestRow {
  test: string;
  passed: boolean;
  offending: number;
  examples: unknown[];
  /** Why the test could not run (it then fails). */
  error?: string;
}

function rowsOf(value: unknown): DataTestRow[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((v): DataTestRow[] => {
    if (!v || typeof v !== "object") return [];
    const o = v as Record<string, unknown>;
    if (typeof o.test !== "string" || typeof o.passed !== "boolean") return [];
    return [
      {
        test: o.test,
        passed: o.passed,
        offending: typeof o.offending === "number" ? o.offending : 0,
        examples: Array.isArray(o.examples) ? o.examples : [],
        ...(typeof o.error === "string" && { error: o.error }),
      },
    ];
  });
}

/** The data tests of `run`'s lake write, or an empty list when it ran none. */
export function dataTestOutcomes(run: Pick<ApiRun, "status" | "result" | "error">): DataTestRow[] {
  if (run.status === "succeeded" && run.result && typeof run.result === "object" && !Array.isArray(run.result))
    return rowsOf((run.result as Record<string, unknown>).tests);
  if (run.error?.code === "LAKE_AUDIT_FAILED") return rowsOf(run.error.data?.outcomes);
  return [];
}
