/**
 * The overview: throughput, failures and queue depth over the last hour or day (charts),
 * the slowest workflows and the runs waiting for an approval, each with its trace.
 */
import { lazy, Suspense, useMemo, useState } from "react";
import { Link } from "wouter";
import type { ApiOverview } from "../../../http/api-types";
import { seg } from "../api/client";
import { useLiveRefresh } from "../api/live";
import { useApi } from "../api/use-api";
import { LoadError } from "../components/ErrorBlock";
import { TraceLink } from "../components/TraceLink";
import { useNow, useTitle } from "../hooks";
import { duration, relative, timestamp } from "../lib/format";
import { chartPoints } from "../lib/overview-chart";

const OverviewCharts = lazy(() => import("../components/OverviewCharts"));

/** See the module comment. */
export function OverviewPage() {
  useTitle("Overview");
  const [window, setWindow] = useState<"1h" | "1d">("1h");
  const data = useApi<ApiOverview>(`/api/overview?window=${window}`);
  useLiveRefresh(data.reload, { pollMs: 15_000, minGapMs: 2_000 });
  const now = useNow(10_000);
  const o = data.data;
  const points = useMemo(() => (o ? chartPoints(o.buckets) : []), [o]);
  return (
    <div className="page">
      <header className="page-head">
        <div>
          <h1>Overview</h1>
          <p className="sub">What the engine did over the last {window === "1h" ? "hour" : "day"}.</p>
        </div>
        <div className="seg" role="group" aria-label="Window">
          {(["1h", "1d"] as const).map((w) => (
            <button
              key={w}
              className={w === window ? "seg-on" : ""}
              aria-pressed={w === window}
              onClick={() => setWindow(w)}
            >
              {w === "1h" ? "Last hour" : "Last day"}
            </button>
          ))}
        </div>
      </header>
      {data.error ? <LoadError error={data.error} /> : null}
      {!o ? (
        <div className="empty">Loading…</div>
      ) : (
        <>
          <dl className="facts" data-testid="overview-totals">
            <div>
              <dt>Finished</dt>
              <dd data-testid="total-finished">{o.totals.finished}</dd>
            </div>
            <div>
              <dt>Succeeded</dt>
              <dd>{o.totals.succeeded}</dd>
            </div>
            <div>
              <dt>Failed</dt>
              <dd data-testid="total-failed">{o.totals.failed}</dd>
            </div>
            <div>
              <dt>Enqueued</dt>
              <dd>{o.totals.enqueued}</dd>
            </div>
            <div>
              <dt>Queued now</dt>
              <dd data-testid="queued-now">{o.queuedNow}</dd>
            </div>
          </dl>
          <Suspense fallback={<div className="empty">Loading charts…</div>}>
            <OverviewCharts points={points} />
          </Suspense>
          <section className="card flush" data-testid="slowest">
            <div className="card-head pad-head">
              <h2>Slowest workflows</h2>
              <span className="muted small">mean first start to finish of runs finished in the window</span>
            </div>
            {o.slowest.length === 0 ? (
              <div className="empty">No run finished in this window.</div>
            ) : (
              <table className="table">
                <thead>
                  <tr>
                    <th>Workflow</th>
                    <th>Runs</th>
                    <th>Mean</th>
                    <th>Max</th>
                  </tr>
                </thead>
                <tbody>
                  {o.slowest.map((w) => (
                    <tr key={w.workflow}>
                      <td className="strong">
                        <Link href={`/workflows/${seg(w.workflow)}`}>{w.workflow}</Link>
                      </td>
                      <td>{w.runs}</td>
                      <td className="mono">{duration(w.meanMs)}</td>
                      <td className="mono">{duration(w.maxMs)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <section className="card flush" data-testid="approvals">
            <div className="card-head pad-head">
              <h2>Waiting for approval</h2>
            </div>
            {o.approvals.length === 0 ? (
              <div className="empty">No run waits for an approval.</div>
            ) : (
              <table className="table">
                <thead>
                  <tr>
                    <th>Run</th>
                    <th>Approval</th>
                    <th>Waiting since</th>
                    <th>Trace</th>
                  </tr>
                </thead>
                <tbody>
                  {o.approvals.map((a) => (
                    <tr key={`${a.runId} ${a.key}`}>
                      <td>
                        <Link href={`/runs/${seg(a.runId)}`} className="strong">
                          {a.workflow}
                        </Link>{" "}
                        <span className="mono muted">{a.runId.slice(0, 12)}</span>
                      </td>
                      <td className="mono">{a.key}</td>
                      <td title={timestamp(a.since)}>{relative(a.since, now)}</td>
                      <td>
                        <TraceLink trace={a.trace} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </>
      )}
    </div>
  );
}
