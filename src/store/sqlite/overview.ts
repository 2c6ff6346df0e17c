/**
 * `Store.overview` on SQLite: bucketed counts, the slowest workflows and the waiting
 * approvals of one window. Runs that matter to a window have finished in it or not at all,
 * so every read goes through `runs_finished` (finished_at) or `runs_active` (unfinished runs); the
 * finished ones name their index, as the planner otherwise walks every run (by workflow, to group
 * without sorting) once the table has been analysed.
 */
import type { OverviewEvent, OverviewRequest, StoreOverview } from "../types.js";
import type { Statements } from "./statements.js";
import { ACTIVE } from "./status-terms.js";

/** Runs that finished in the window, plus the unfinished ones. Takes `@from`. */
const WINDOW_RUNS = `SELECT created_at, started_at, finished_at, status, parent_id IS NULL AS top FROM runs INDEXED BY runs_finished WHERE finished_at >= @from
  UNION ALL
  SELECT created_at, started_at, finished_at, status, parent_id IS NULL AS top FROM runs
    WHERE ${ACTIVE} AND finished_at IS NULL`;

const ACTIVITY = `WITH w AS (${WINDOW_RUNS})
  SELECT 'enqueued' AS event, CAST((created_at - @from) / @bucket AS INTEGER) AS bucket, top, COUNT(*) AS count FROM w
    WHERE created_at >= @from GROUP BY 2, 3
  UNION ALL
  SELECT 'started', CAST((started_at - @from) / @bucket AS INTEGER), top, COUNT(*) FROM w WHERE started_at >= @from GROUP BY 2, 3
  UNION ALL
  SELECT CASE WHEN started_at IS NULL THEN 'left-unstarted' ELSE status END, CAST((finished_at - @from) / @bucket AS INTEGER), top, COUNT(*)
    FROM w WHERE finished_at >= @from GROUP BY 1, 2, 3`;

const QUEUED_AT_FROM = `WITH w AS (${WINDOW_RUNS})
  SELECT COUNT(*) AS n FROM w WHERE created_at < @from AND (started_at IS NULL OR started_at >= @from)`;

const SLOWEST = `SELECT workflow, COUNT(*) AS runs, AVG(finished_at - started_at) AS meanMs, MAX(finished_at - started_at) AS maxMs
  FROM runs INDEXED BY runs_finished WHERE finished_at >= @from AND started_at IS NOT NULL AND status IN ('succeeded', 'failed')
  GROUP BY workflow ORDER BY meanMs DESC, workflow LIMIT @limit`;

const APPROVALS = `SELECT r.id AS runId, r.workflow, s.key, s.started_at AS since, r.options FROM steps s
  JOIN runs r ON r.id = s.run_id
  WHERE s.kind = 'approval' AND s.status = 'pending' AND r.status = 'waiting'
  ORDER BY s.started_at, r.seq LIMIT @limit`;

/** Reads the overview figures of `req` (one read transaction is not needed: each figure stands alone). */
export function readOverview(s: Statements, req: OverviewRequest): StoreOverview {
  const window = { from: req.from, bucket: Math.max(1, Math.floor(req.bucketMs)) };
  return {
    activity: (
      s.get(ACTIVITY).all(window) as Array<{ event: OverviewEvent; bucket: number; top: number; count: number }>
    ).map((r) => ({ event: r.event, bucket: r.bucket, topLevel: r.top === 1, count: r.count })),
    queuedAtFrom: (s.get(QUEUED_AT_FROM).get({ from: req.from }) as { n: number }).n,
    slowest: (
      s.get(SLOWEST).all({ from: req.from, limit: req.slowest }) as Array<StoreOverview["slowest"][number]>
    ).map((r) => ({ ...r, meanMs: Math.round(r.meanMs) })),
    approvals: s.get(APPROVALS).all({ limit: req.approvals }) as StoreOverview["approvals"],
  };
}
