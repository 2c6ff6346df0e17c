/**
 * `Store.overview` on Postgres: bucketed counts, the slowest workflows and the waiting
 * approvals of one window. Runs that matter to a window have finished in it or not at all,
 * so every read goes through `runs_finished` (finished_at) or `runs_by_status` (status).
 */
import type { OverviewEvent, OverviewRequest, StoreOverview } from "../types.js";
import type { Queryable } from "./db.js";

/** Runs that finished in the window, plus the unfinished ones. Takes `$1` (from). */
const WINDOW_RUNS = `SELECT created_at, started_at, finished_at, status, parent_id IS NULL AS top FROM runs WHERE finished_at >= $1::bigint
  UNION ALL
  SELECT created_at, started_at, finished_at, status, parent_id IS NULL AS top FROM runs
    WHERE status IN ('pending', 'running', 'waiting') AND finished_at IS NULL`;

const ACTIVITY = `WITH w AS (${WINDOW_RUNS})
  SELECT 'enqueued' AS event, (created_at - $1::bigint) / $2::bigint AS bucket, top, count(*) AS count FROM w
    WHERE created_at >= $1::bigint GROUP BY 2, 3
  UNION ALL
  SELECT 'started', (started_at - $1::bigint) / $2::bigint, top, count(*) FROM w WHERE started_at >= $1::bigint GROUP BY 2, 3
  UNION ALL
  SELECT CASE WHEN started_at IS NULL THEN 'left-unstarted' ELSE status END, (finished_at - $1::bigint) / $2::bigint, top, count(*)
    FROM w WHERE finished_at >= $1::bigint GROUP BY 1, 2, 3`;

const QUEUED_AT_FROM = `WITH w AS (${WINDOW_RUNS})
  SELECT count(*) AS n FROM w WHERE created_at < $1::bigint AND (started_at IS NULL OR started_at >= $1::bigint)`;

const SLOWEST = `SELECT workflow, count(*) AS runs, avg(finished_at - started_at) AS mean_ms, max(finished_at - started_at) AS max_ms
  FROM runs WHERE finished_at >= $1::bigint AND started_at IS NOT NULL AND status IN ('succeeded', 'failed')
  GROUP BY workflow ORDER BY mean_ms DESC, workflow LIMIT $2::bigint`;

const APPROVALS = `SELECT r.id, r.workflow, s.key, s.started_at, r.options FROM steps s
  JOIN runs r ON r.id = s.run_id
  WHERE s.kind = 'approval' AND s.status = 'pending' AND r.status = 'waiting'
  ORDER BY s.started_at, r.seq LIMIT $1::bigint`;

/** Reads the overview figures of `req`. */
export async function readOverview(db: Queryable, req: OverviewRequest): Promise<StoreOverview> {
  const from = Math.floor(req.from);
  const bucket = Math.max(1, Math.floor(req.bucketMs));
  const activity = await db.query<{ event: OverviewEvent; bucket: string; top: boolean; count: string }>(ACTIVITY, [
    from,
    bucket,
  ]);
  const queued = await db.query<{ n: string }>(QUEUED_AT_FROM, [from]);
  const slowest = await db.query<{ workflow: string; runs: string; mean_ms: string; max_ms: string }>(SLOWEST, [
    from,
    req.slowest,
  ]);
  const approvals = await db.query<{
    id: string;
    workflow: string;
    key: string;
    started_at: string;
    options: string | null;
  }>(APPROVALS, [req.approvals]);
  return {
    activity: activity.rows.map((r) => ({
      event: r.event,
      bucket: Number(r.bucket),
      topLevel: r.top,
      count: Number(r.count),
    })),
    queuedAtFrom: Number(queued.rows[0]?.n ?? 0),
    slowest: slowest.rows.map((r) => ({
      workflow: r.workflow,
      runs: Number(r.runs),
      meanMs: Math.round(Number(r.mean_ms)),
      maxMs: Number(r.max_ms),
    })),
    approvals: approvals.rows.map((r) => ({
      runId: r.id,
      workflow: r.workflow,
      key: r.key,
      since: Number(r.started_at),
      options: r.options,
    })),
  };
}
