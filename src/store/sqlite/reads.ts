import type { LogRecord, RunFilter, RunRecord, RunStatus, StepRecord, WorkflowInfo } from "../types.js";
import { rawToRun, type StepRow, toLog, toStep, toWorkflow } from "./rows.js";
import type { Statements } from "./statements.js";
import { knownStatuses, statusIndex, statusIs } from "./status-terms.js";

/** The read half of the SQLite store: lookups and listings for the CLI, API and engine. */
export class SqliteReads {
  constructor(private readonly s: Statements) {}

  getRun(id: string): RunRecord | null {
    const { stmt, columns } = this.s.raw("SELECT * FROM runs WHERE id = ?");
    const row = stmt.get(id) as unknown[] | undefined;
    return row ? rawToRun(row, columns) : null;
  }

  getRuns(ids: readonly string[]): RunRecord[] {
    if (ids.length === 0) return [];
    const { stmt, columns } = this.s.raw("SELECT * FROM runs WHERE id IN (SELECT value FROM json_each(?))");
    return (stmt.all(JSON.stringify(ids)) as unknown[][]).map((row) => rawToRun(row, columns));
  }

  /**
   * Newest first. With statuses, one ordered read per status, each walking its index newest
   * first and stopping at the limit (`runs_active`, `runs_unsuccessful`, or the table itself
   * for succeeded runs), merged: a list of recent failures never reads the history of successes.
   */
  listRuns(filter: RunFilter): RunRecord[] {
    const { where, params } = whereClause(filter);
    const limit = Math.min(Math.max(filter.limit ?? 50, 1), 10_000);
    const statuses = filter.status === undefined ? null : knownStatuses(filter.status);
    if (statuses?.length === 0) return [];
    const newest = (st?: RunStatus) =>
      `SELECT * FROM runs${st ? statusIndex(st) : ""} ${joinWhere(st ? [statusIs(st), ...where] : where)} ORDER BY seq DESC LIMIT ?`;
    const sql =
      statuses === null
        ? newest()
        : statuses.length === 1
          ? newest(statuses[0])
          : `${statuses.map((st) => `SELECT * FROM (${newest(st)})`).join(" UNION ALL ")} ORDER BY seq DESC LIMIT ?`;
    const args =
      statuses === null || statuses.length === 1
        ? [...params, limit]
        : [...statuses.flatMap(() => [...params, limit]), limit];
    const { stmt, columns } = this.s.raw(sql);
    return (stmt.all(...args) as unknown[][]).map((row) => rawToRun(row, columns));
  }

  /** Counted one status at a time (see {@link listRuns}). */
  countRuns(filter: Omit<RunFilter, "limit" | "beforeSeq">): number {
    const { where, params } = whereClause(filter);
    const count = (st?: RunStatus) => {
      const sql = `SELECT COUNT(*) AS n FROM runs${st ? statusIndex(st) : ""} ${joinWhere(st ? [statusIs(st), ...where] : where)}`;
      return (this.s.get(sql).get(...params) as { n: number }).n;
    };
    if (filter.status === undefined) return count();
    return knownStatuses(filter.status).reduce((n, st) => n + count(st), 0);
  }

  getSteps(runId: string): StepRecord[] {
    return (
      this.s.get("SELECT * FROM steps WHERE run_id = ? ORDER BY position, started_at").all(runId) as StepRow[]
    ).map(toStep);
  }

  getLogs(runId: string, afterSeq: number): LogRecord[] {
    return (
      this.s.get("SELECT * FROM logs WHERE run_id = ? AND seq > ? ORDER BY seq").all(runId, afterSeq) as Parameters<
        typeof toLog
      >[0][]
    ).map(toLog);
  }

  listWorkflows(): WorkflowInfo[] {
    return (
      this.s.get("SELECT * FROM workflows WHERE removed_at IS NULL ORDER BY name").all() as Parameters<
        typeof toWorkflow
      >[0][]
    ).map(toWorkflow);
  }

  getWorkflow(name: string): WorkflowInfo | null {
    const row = this.s.get("SELECT * FROM workflows WHERE name = ?").get(name) as
      Parameters<typeof toWorkflow>[0] | undefined;
    return row ? toWorkflow(row) : null;
  }
}

/** `WHERE a AND b …`, or nothing. */
function joinWhere(parts: readonly string[]): string {
  return parts.length ? `WHERE ${parts.join(" AND ")}` : "";
}

/**
 * The filter's conditions other than status (see {@link listRuns}), parameterised: user values
 * are never interpolated into SQL.
 */
function whereClause(f: Omit<RunFilter, "status" | "limit">): { where: string[]; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (f.workflow !== undefined) {
    parts.push("workflow = ?");
    params.push(f.workflow);
  }
  if (f.parentId !== undefined) {
    parts.push("parent_id = ?");
    params.push(f.parentId);
  }
  if (f.createdAfter !== undefined) {
    parts.push("created_at >= ?");
    params.push(f.createdAfter);
  }
  if (f.createdBefore !== undefined) {
    parts.push("created_at < ?");
    params.push(f.createdBefore);
  }
  if (f.beforeSeq !== undefined) {
    parts.push("seq < ?");
    params.push(f.beforeSeq);
  }
  return { where: parts, params };
}
