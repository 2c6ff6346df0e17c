import type { LogRecord, RunFilter, RunRecord, StepRecord, WorkflowInfo } from "../types.js";
import { rawToRun, type StepRow, toLog, toStep, toWorkflow } from "./rows.js";
import type { Statements } from "./statements.js";

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

  listRuns(filter: RunFilter): RunRecord[] {
    const { where, params } = whereClause(filter);
    const { stmt, columns } = this.s.raw(`SELECT * FROM runs ${where} ORDER BY seq DESC LIMIT ?`);
    const rows = stmt.all(...params, Math.min(Math.max(filter.limit ?? 50, 1), 10_000)) as unknown[][];
    return rows.map((row) => rawToRun(row, columns));
  }

  countRuns(filter: Omit<RunFilter, "limit" | "beforeSeq">): number {
    const { where, params } = whereClause(filter);
    return (this.s.get(`SELECT COUNT(*) AS n FROM runs ${where}`).get(...params) as { n: number }).n;
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

/** Builds a parameterised WHERE clause; user values are never interpolated into SQL. */
function whereClause(f: RunFilter): { where: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (f.status !== undefined) {
    parts.push("status IN (SELECT value FROM json_each(?))");
    params.push(JSON.stringify(Array.isArray(f.status) ? f.status : [f.status]));
  }
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
  return { where: parts.length ? `WHERE ${parts.join(" AND ")}` : "", params };
}
