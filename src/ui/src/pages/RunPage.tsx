/**
 * One run: header with status and actions, the approval form when it waits for one, the
 * signal form when it waits for an event, the error with its stack, the timeline (steps and child runs), the live diagram, logs of
 * the chosen row, and the payload and result.
 */
import { lazy, Suspense, useMemo, useState } from "react";
import { Link } from "wouter";
import type { ApiDiagram, ApiRunDetail, ApiRunRelease } from "../../../http/api-types";
import { seg } from "../api/client";
import { useLiveRefresh } from "../api/live";
import { useApi } from "../api/use-api";
import { useSession } from "../app-context";
import { ApprovalPanel } from "../components/ApprovalPanel";
import { CopyButton } from "../components/CopyButton";
import { DataTests } from "../components/DataTests";
import { ErrorBlock, LoadError } from "../components/ErrorBlock";
import { StartedBy } from "../components/StartedBy";
import { JsonBlock } from "../components/JsonBlock";
import { LogView } from "../components/LogView";
import { RunActions } from "../components/RunActions";
import { SignalPanel } from "../components/SignalPanel";
import { StatusBadge } from "../components/StatusBadge";
import { Timeline } from "../components/Timeline";
import { TraceLink } from "../components/TraceLink";
import { usePathParam, useNow, useTitle } from "../hooks";
import { dataTestOutcomes } from "../lib/data-test-outcomes";
import { nodeStates } from "../lib/diagram-status";
import { duration, relative, timestamp } from "../lib/format";
import { runDuration } from "../lib/run-duration";
import { isFinished } from "../lib/status";
import { buildTimeline, type TimelineRow } from "../lib/timeline";

const Diagram = lazy(() => import("../components/Diagram"));

/** See the module comment. */
export function RunPage() {
  const id = usePathParam("/runs/");
  const session = useSession();
  const detail = useApi<ApiRunDetail>(`/api/runs/${seg(id)}`);
  const run = detail.data?.run ?? null;
  const active = run ? !isFinished(run.status) : true;
  useLiveRefresh(detail.reload, { active, pollMs: 1500 });
  const now = useNow(active ? 500 : 60_000);
  useTitle(run ? `${run.name} ${run.status}` : "Run");
  // Only code from a release has one: a run without a code version (in-process code) never does.
  const release = useApi<ApiRunRelease>(run?.version ? `/api/runs/${seg(id)}/release` : null);
  const diagram = useApi<ApiDiagram>(run && run.task === null ? `/api/workflows/${seg(run.workflow)}/diagram` : null);
  const [selected, setSelected] = useState<TimelineRow | null>(null);
  const timeline = useMemo(() => (detail.data ? buildTimeline(detail.data, now) : null), [detail.data, now]);
  const childLabels = useMemo(
    () => new Map((detail.data?.children ?? []).map((c) => [c.id, c.parentKey ?? c.name])),
    [detail.data],
  );
  const states = useMemo(
    () => (diagram.data && detail.data ? nodeStates(diagram.data.diagram, detail.data, now) : null),
    [diagram.data, detail.data, now],
  );

  if (detail.error)
    return (
      <div className="page">
        <LoadError error={detail.error} />
      </div>
    );
  if (!detail.data || !run || !timeline)
    return (
      <div className="page">
        <div className="empty">Loading…</div>
      </div>
    );
  const d = detail.data;
  const tests = dataTestOutcomes(run);
  const row = selected ? (timeline.rows.find((r) => r.id === selected.id) ?? null) : null;
  const logRun = row?.child ? row.child.id : run.id;
  const logStep = row && !row.child && row.step ? row.step.key : null;
  const logTitle = row?.child
    ? `child run ${row.child.name}`
    : logStep
      ? `step ${logStep}`
      : d.children.length
        ? "the run and its child runs"
        : "whole run";
  return (
    <div className="page">
      <nav className="crumbs">
        <Link href="/runs">Runs</Link>
        <span>/</span>
        <Link href={`/workflows/${seg(run.workflow)}`}>{run.workflow}</Link>
        {run.parentId ? (
          <>
            <span>/</span>
            <Link href={`/runs/${seg(run.parentId)}`}>parent run</Link>
          </>
        ) : null}
      </nav>
      <header className="page-head run-head">
        <div>
          <div className="title-row">
            <h1>{run.name}</h1>
            <StatusBadge status={run.status} />
          </div>
          <div className="run-id mono">
            {run.id} <CopyButton text={run.id} label="Copy run id" />
          </div>
        </div>
        <RunActions run={run} onDone={detail.reload} />
      </header>
      <dl className="facts">
        <div>
          <dt>Started by</dt>
          <dd>
            <StartedBy run={run} />
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd title={timestamp(run.createdAt)}>{relative(run.createdAt, now)}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd className="mono" data-testid="run-duration">
            {run.startedAt ? duration(runDuration(run, now)) : "not started"}
          </dd>
        </div>
        <div>
          <dt>Attempt</dt>
          <dd>
            {run.attempt} of {run.maxAttempts}
          </dd>
        </div>
        <div>
          {/* Numbers only: "5 · 2 child runs" did not fit a laptop-wide column and was cut to "5 · 2 child r…". */}
          <dt>{d.children.length ? "Steps · tasks" : "Steps"}</dt>
          <dd title={d.children.length ? `${d.steps.length} steps, ${d.children.length} child runs` : undefined}>
            {d.steps.length}
            {d.children.length ? ` · ${d.children.length}` : ""}
          </dd>
        </div>
        <div>
          <dt>Code</dt>
          <dd className="mono">{run.version ? run.version.slice(0, 10) : "in-process"}</dd>
        </div>
        <div>
          <dt>Release</dt>
          <dd data-testid="run-release">
            {release.data?.release ? (
              <Link href={`/releases/${release.data.release}`}>release {release.data.release}</Link>
            ) : (
              "—"
            )}
          </dd>
        </div>
        <div>
          <dt>Trace</dt>
          <dd>
            <TraceLink trace={d.trace} />
          </dd>
        </div>
      </dl>
      {d.approvals.map((a) => (
        <ApprovalPanel key={a.key} run={run} approval={a} me={session.me.name} onDecided={detail.reload} now={now} />
      ))}
      {run.status === "waiting"
        ? d.steps
            .filter((s): s is typeof s & { event: string } => s.kind === "wait" && s.status === "pending" && !!s.event)
            .map((s) => (
              <SignalPanel
                key={s.key}
                step={s}
                canSend={session.me.scope !== "read"}
                onSent={detail.reload}
                now={now}
              />
            ))
        : null}
      {run.error && (run.status === "failed" || run.status === "cancelled" || run.status === "pending") ? (
        <ErrorBlock
          error={run.error}
          title={
            run.status === "pending"
              ? `Attempt ${run.attempt - 1} failed; retrying`
              : run.status === "cancelled"
                ? "Cancelled"
                : "Error"
          }
        />
      ) : null}
      {tests.length ? <DataTests rows={tests} /> : null}
      <section className="card" aria-label="Timeline card">
        <div className="card-head">
          <h2>Timeline</h2>
          <span className="muted small">Click a row for its logs</span>
        </div>
        <Timeline
          data={timeline}
          selected={row?.id ?? null}
          onSelect={(r) => setSelected(r.kind === "run" ? null : r)}
        />
        {d.childrenTruncated ? <p className="muted small">Showing the first {d.children.length} child runs.</p> : null}
      </section>
      {diagram.data ? (
        <section className="card" aria-label="Diagram card">
          <div className="card-head">
            <h2>Diagram</h2>
            <span className="muted small mono">{diagram.data.file}</span>
          </div>
          <Suspense fallback={<div className="muted small pad">Loading the diagram…</div>}>
            <Diagram
              diagram={diagram.data.diagram}
              states={states}
              onSelect={(node) => {
                const match = timeline.rows.find((r) => r.step?.key === node.key);
                if (match) setSelected(match);
              }}
            />
          </Suspense>
        </section>
      ) : null}
      <div className="logs-head-row">
        {row?.child ? (
          <Link className="small" href={`/runs/${seg(row.child.id)}`}>
            Open child run →
          </Link>
        ) : null}
      </div>
      <LogView
        key={`${logRun}:${logStep ?? ""}`}
        runId={logRun}
        step={logStep}
        title={logTitle}
        children={row ? undefined : childLabels}
      />
      <div className="two">
        <section className="card" aria-label="Payload">
          <div className="card-head">
            <h2>Payload</h2>
          </div>
          <JsonBlock value={run.payload} label="payload" />
        </section>
        <section className="card" aria-label="Result">
          <div className="card-head">
            <h2>Result</h2>
          </div>
          {run.status === "succeeded" ? (
            <JsonBlock value={run.result} label="result" empty="(no result)" />
          ) : (
            <div className="muted small">
              {isFinished(run.status) ? "No result: the run did not succeed." : "Not finished yet."}
            </div>
          )}
        </section>
      </div>
      {d.approvalEvents.length ? (
        <section className="card flush" aria-label="Approval history">
          <div className="card-head pad-head">
            <h2>Approval history</h2>
          </div>
          <table className="table">
            <thead>
              <tr>
                <th>When</th>
                <th>Who</th>
                <th>Decision</th>
                <th>Outcome</th>
                <th>Via</th>
              </tr>
            </thead>
            <tbody>
              {d.approvalEvents.map((e, i) => (
                <tr key={i}>
                  <td title={timestamp(e.at)}>{relative(e.at, now)}</td>
                  <td>{e.actor ?? "anonymous (link)"}</td>
                  <td>{e.decision}</td>
                  <td>
                    <span className={`chip ${e.outcome === "resolved" ? "chip-ok" : "chip-warn"}`}>{e.outcome}</span>
                  </td>
                  <td className="muted">{e.via ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
    </div>
  );
}
