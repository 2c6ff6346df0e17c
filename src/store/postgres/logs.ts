/**
 * `Store.listLogs` and `Store.lastLogSeq` on Postgres: log lines across runs, newest first (or
 * after a sequence number when following), joined with their run's workflow; `since` bounded by
 * the first line of the runs that can have printed since then (`store/log-window.ts`).
 *
 * Following (`afterSeq`, `upToSeq`), the lines are read from the log's primary key (or
 * `logs_by_run`), and each line's run by its id: a follower reads a short range at the end of the
 * log (`cli/log-follow.ts`). The run is a lateral subquery with `OFFSET 0` so that the planner
 * cannot merge it into a join it would answer with a hash of every run (or of every run of the
 * workflow), nor start from the workflow's runs and read all their lines.
 */
import { boundsLogScan, LOG_SINCE_MAX_RUNS, LOG_SINCE_SLACK_MS } from "../log-window.js";
import type { LogFilter, LogRecord } from "../types.js";
import type { Queryable } from "./db.js";
import { toLog } from "./rows.js";

/** Reads the log lines `filter` selects (see the module comment). */
export async function readLogs(db: Queryable, filter: LogFilter): Promise<Array<LogRecord & { workflow: string }>> {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    clauses.push(sql.replace("?", `$${params.length}`));
  };
  if (filter.runId !== undefined) add("l.run_id = ?", filter.runId);
  if (filter.workflow !== undefined) add("r.workflow = ?", filter.workflow);
  if (filter.since !== undefined) add("l.ts >= ?", filter.since);
  if (filter.afterSeq !== undefined) add("l.seq > ?", filter.afterSeq);
  if (filter.afterSeq !== undefined && filter.upToSeq !== undefined) add("l.seq <= ?", filter.upToSeq);
  // See store/log-window.ts: the first line of the runs that can have printed since `since` bounds the scan.
  if (boundsLogScan(filter)) {
    params.push(filter.since! - LOG_SINCE_SLACK_MS, LOG_SINCE_MAX_RUNS);
    const [from, max] = [`$${params.length - 1}::bigint`, `$${params.length}::bigint`];
    const runs = `SELECT id FROM runs WHERE finished_at >= ${from} UNION ALL
      SELECT id FROM runs WHERE status IN ('pending', 'running', 'waiting')`;
    clauses.push(`l.seq >= COALESCE(CASE WHEN (SELECT count(*) FROM (${runs} LIMIT ${max} + 1) c) > ${max} THEN 0
      ELSE (SELECT min((SELECT min(x.seq) FROM logs x WHERE x.run_id = w.id)) FROM (${runs}) w) END, 9000000000000000000)`);
  }
  const follow = filter.afterSeq !== undefined;
  const from = follow
    ? "logs l CROSS JOIN LATERAL (SELECT workflow FROM runs WHERE id = l.run_id OFFSET 0) r"
    : "logs l JOIN runs r ON r.id = l.run_id";
  const sql = `SELECT l.*, r.workflow AS workflow FROM ${from}
    ${clauses.length ? `WHERE ${clauses.join(" AND ")}` : ""} ORDER BY l.seq ${follow ? "ASC" : "DESC"} LIMIT ${Math.max(1, Math.floor(filter.limit))}`;
  const { rows } = await db.query<Parameters<typeof toLog>[0] & { workflow: string }>(sql, params);
  const out = rows.map((r) => ({ ...toLog(r), workflow: r.workflow }));
  return follow ? out : out.reverse();
}

/** The highest `seq` of a stored line, 0 when there is none (`Store.lastLogSeq`). */
export async function lastLogSeq(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ seq: number }>("SELECT COALESCE(max(seq), 0)::bigint AS seq FROM logs");
  return rows[0]!.seq;
}
