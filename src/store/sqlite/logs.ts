/**
 * `Store.listLogs` on SQLite: log lines across runs, newest first (or after a sequence
 * number when following), joined with their run's workflow; `since` bounded by the first
 * line of the runs that can have printed since then (`store/log-window.ts`).
 *
 * Following (`afterSeq`, `upToSeq`), the lines are read from the log's primary key (or
 * `logs_by_run`; `CROSS JOIN` keeps the log the outer table), and each line's run by its id: a
 * follower reads a short range at the end of the log (`cli/log-follow.ts`). With a workflow
 * SQLite otherwise starts from `runs_by_workflow` and reads every line of every run of the
 * workflow, then sorts them, at each poll (or, after `ANALYZE`, looks each line's run up among
 * all the workflow's runs).
 */
import { boundsLogScan, LOG_SINCE_MAX_RUNS, LOG_SINCE_SLACK_MS } from "../log-window.js";
import type { LogFilter, LogRecord } from "../types.js";
import { toLog } from "./rows.js";
import type { Statements } from "./statements.js";
import { ACTIVE } from "./status-terms.js";

/** Reads the log lines `filter` selects (see the module comment). */
export function readLogs(s: Statements, filter: LogFilter): Array<LogRecord & { workflow: string }> {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    clauses.push(sql);
  };
  if (filter.runId !== undefined) add("l.run_id = ?", filter.runId);
  const follow = filter.afterSeq !== undefined;
  // Following, `+` keeps SQLite from looking the run up in `runs_by_workflow` (all the workflow's runs, per line).
  if (filter.workflow !== undefined) add(follow ? "+r.workflow = ?" : "r.workflow = ?", filter.workflow);
  if (filter.since !== undefined) add("l.ts >= ?", filter.since);
  if (filter.afterSeq !== undefined) add("l.seq > ?", filter.afterSeq);
  if (filter.afterSeq !== undefined && filter.upToSeq !== undefined) add("l.seq <= ?", filter.upToSeq);
  if (boundsLogScan(filter)) {
    const from = filter.since! - LOG_SINCE_SLACK_MS;
    params.push(from, LOG_SINCE_MAX_RUNS + 1, LOG_SINCE_MAX_RUNS, from);
    const runs = `SELECT id FROM runs INDEXED BY runs_finished WHERE finished_at >= ? UNION ALL
      SELECT id FROM runs WHERE ${ACTIVE}`;
    clauses.push(`l.seq >= COALESCE(CASE WHEN (SELECT COUNT(*) FROM (${runs} LIMIT ?)) > ? THEN 0
      ELSE (SELECT MIN((SELECT MIN(x.seq) FROM logs x WHERE x.run_id = w.id)) FROM (${runs}) w) END, 9000000000000000000)`);
  }
  const sql = `SELECT l.*, r.workflow AS workflow FROM logs l ${follow ? "CROSS JOIN" : "JOIN"} runs r ON r.id = l.run_id
    ${clauses.length ? `WHERE ${clauses.join(" AND ")}` : ""} ORDER BY l.seq ${follow ? "ASC" : "DESC"} LIMIT ${Math.max(1, Math.floor(filter.limit))}`;
  const rows = (s.get(sql).all(...params) as Array<Parameters<typeof toLog>[0] & { workflow: string }>).map((r) => ({
    ...toLog(r),
    workflow: r.workflow,
  }));
  return follow ? rows : rows.reverse();
}

/** The highest `seq` of a stored line, 0 when there is none (`Store.lastLogSeq`). */
export function lastLogSeq(s: Statements): number {
  return (s.get("SELECT COALESCE(MAX(seq), 0) AS seq FROM logs").get() as { seq: number }).seq;
}
