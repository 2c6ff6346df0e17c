/** The columns a `workflows` upsert compares (pure SQL text, shared by both stores). */
const WORKFLOW_COLUMNS = [
  "version",
  "queue",
  "max_attempts",
  "backoff_base",
  "backoff_max",
  "source",
  "schedule",
  "local",
  "params",
] as const;

/**
 * The condition, in an upsert of `workflows`, that the stored row differs from the `excluded`
 * one (or is removed): `distinct` is the dialect's null-safe "differs" (`IS DISTINCT FROM` on
 * Postgres, `IS NOT` on SQLite). Rows already as given are then neither rewritten nor announced.
 */
export function workflowChanged(distinct: "IS DISTINCT FROM" | "IS NOT"): string {
  return WORKFLOW_COLUMNS.map((c) => `workflows.${c} ${distinct} excluded.${c}`)
    .concat("workflows.removed_at IS NOT NULL")
    .join(" OR ");
}
