/**
 * `GET /api/overview?window=1h|1d`: the web UI's overview page. Throughput, failures and
 * queue depth per bucket (the rules in `core/overview-buckets.ts`), the slowest
 * workflows and the runs waiting for an approval (with their traces), from one
 * `Store.overview` read.
 */
import type { Hono } from "hono";
import { bucketActivity, overviewRange, parseOverviewWindow } from "../../core/overview-buckets.js";
import type { ApiOverview } from "../api-types.js";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";
import { iso, traceLinkView } from "../views.js";

/** Workflows listed as the slowest. */
const OVERVIEW_SLOWEST = 10;
/** Waiting approvals listed at most. */
const OVERVIEW_APPROVALS = 50;

/** Registers the overview route. */
export function overviewRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  app.get("/api/overview", requireScope("read"), async (c) => {
    const window = parseOverviewWindow(c.req.query("window"));
    const store = deps.engine.store;
    const now = await store.now();
    const range = overviewRange(window, now);
    const o = await store.overview({
      from: range.from,
      bucketMs: range.bucketMs,
      slowest: OVERVIEW_SLOWEST,
      approvals: OVERVIEW_APPROVALS,
    });
    const buckets = bucketActivity(range, o.activity, o.queuedAtFrom);
    const sum = (k: "enqueued" | "finished" | "succeeded" | "failed" | "cancelled") =>
      buckets.reduce((n, b) => n + b[k], 0);
    const body: ApiOverview = {
      window,
      bucketMs: range.bucketMs,
      now: iso(now),
      buckets: buckets.map((b) => ({ ...b, start: iso(b.start) })),
      totals: {
        enqueued: sum("enqueued"),
        finished: sum("finished"),
        succeeded: sum("succeeded"),
        failed: sum("failed"),
        cancelled: sum("cancelled"),
      },
      queuedNow: buckets[buckets.length - 1]!.queued,
      slowest: o.slowest,
      approvals: o.approvals.map((a) => ({
        runId: a.runId,
        workflow: a.workflow,
        key: a.key,
        since: iso(a.since),
        trace: traceLinkView(a.options, deps.traceUrl),
      })),
    };
    return c.json(body);
  });
}
