/** Lookups and listings for the CLI, API and engine (no locks, one statement each). */
import type { LogRecord, RunFilter, RunRecord, StepRecord, WorkflowInfo } from "../types.js";
import type { Queryable } from "./db.js";
import { type RunRow, type StepRow, toLog, toRun, toStep, toWorkflow } from "./rows.js";

/** The read half of the Postgres store. */
export class PostgresReads {
  constructor(private readonly db: Queryable) {}

  async getRun(id: string): Promise<RunRecord | null> {
    const { rows } = await this.db.query<RunRow>("SELECT * FROM runs WHERE id = $1", [id]);
    return rows[0] ? toRun(rows[0]) : null;
  }

  async getRuns(ids: readonly string[]): Promise<RunRecord[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.db.query<RunRow>("SELECT * FROM runs WHERE id = ANY($1::text[])", [[...ids]]);
    return rows.map(toRun);
  }

  async listRuns(filter: RunFilter): Promise<RunRecord[]> {
    const { where, params } = whereClause(filter);
    params.push(Math.min(Math.max(filter.limit ?? 50, 1), 10_000));
    const { rows } = await this.db.query<RunRow>(
      `SELECT * FROM runs ${where} ORDER BY seq DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toRun);
  }

  async countRuns(filter: Omit<RunFilter, "limit" | "beforeSeq">): Promise<number> {
    const { where, params } = whereClause(filter);
    const { rows } = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM runs ${where}`, params);
    return rows[0]!.n;
  }

  async getSteps(runId: string): Promise<StepRecord[]> {
    const { rows } = await this.db.query<StepRow>(
      "SELECT * FROM steps WHERE run_id = $1 ORDER BY position, started_at",
      [runId],
    );
    return rows.map(toStep);
  }

  async getLogs(runId: string, afterSeq: number): Promise<LogRecord[]> {
    const { rows } = await this.db.query<Parameters<typeof toLog>[0]>(
      "SELECT * FROM logs WHERE run_id = $1 AND seq > $2 ORDER BY seq",
      [runId, afterSeq],
    );
    return rows.map(toLog);
  }

  async listWorkflows(): Promise<WorkflowInfo[]> {
    const { rows } = await this.db.query<Parameters<typeof toWorkflow>[0]>(
      "SELECT * FROM workflows WHERE removed_at IS NULL ORDER BY name",
    );
    return rows.map(toWorkflow);
  }

  async getWorkflow(name: string): Promise<WorkflowInfo | null> {
    const { rows } = await this.db.query<Parameters<typeof toWorkflow>[0]>("SELECT * FROM workflows WHERE name = $1", [
      name,
    ]);
    return rows[0] ? toWorkflow(rows[0]) : null;
  }
}

/** Builds a parameterised WHERE clause; user values are never interpolated into SQL. */
function whereClause(f: RunFilter): { where: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    parts.push(sql(`$${params.length}`));
  };
  if (f.status !== undefined) add((p) => `status = ANY(${p}::text[])`, Array.isArray(f.status) ? f.status : [f.status]);
  if (f.workflow !== undefined) add((p) => `workflow = ${p}`, f.workflow);
  if (f.parentId !== undefined) add((p) => `parent_id = ${p}`, f.parentId);
  if (f.createdAfter !== undefined) add((p) => `created_at >= ${p}`, f.createdAfter);
  if (f.createdBefore !== undefined) add((p) => `created_at < ${p}`, f.createdBefore);
  if ("beforeSeq" in f && f.beforeSeq !== undefined) add((p) => `seq < ${p}`, f.beforeSeq);
  return { where: parts.length ? `WHERE ${parts.join(" AND ")}` : "", params };
}
