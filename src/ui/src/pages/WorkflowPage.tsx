/** One workflow: success rate and p50/p95 duration, a form to start a run, its diagram, recent runs. */
import { lazy, Suspense, useState } from "react";
import { Link, useLocation } from "wouter";
import type { ApiDiagram, ApiWorkflow, ApiWorkflowDetail } from "../../../http/api-types";
import { api, ApiError, seg } from "../api/client";
import { useLiveRefresh } from "../api/live";
import { useApi } from "../api/use-api";
import { useSession } from "../app-context";
import { LoadError } from "../components/ErrorBlock";
import { RunsTable } from "../components/RunsTable";
import { usePathParam, useNow, useTitle } from "../hooks";
import { duration } from "../lib/format";
import { expectedFields, payloadSkeleton, unfilledRequired } from "../lib/payload-skeleton";

const Diagram = lazy(() => import("../components/Diagram"));

function Stat({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <div className="stat">
      <div className="stat-label">{label}</div>
      <div className="stat-value">{value}</div>
      {hint ? <div className="stat-hint">{hint}</div> : null}
    </div>
  );
}

function StartRun({ workflow, params }: { workflow: string; params: ApiWorkflow["params"] }) {
  const [, navigate] = useLocation();
  const [text, setText] = useState(() => payloadSkeleton(params));
  const fields = expectedFields(params);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const start = async () => {
    setError(null);
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch (e) {
      return setError(`The payload is not JSON: ${(e as Error).message}`);
    }
    const unfilled = unfilledRequired(payload, params);
    if (unfilled) return setError(unfilled);
    setBusy(true);
    try {
      const res = await api<{ run: { id: string } }>("/api/runs", { method: "POST", body: { workflow, payload } });
      navigate(`/runs/${seg(res.run.id)}`);
    } catch (e) {
      setError((e as ApiError).message);
      setBusy(false);
    }
  };
  return (
    <section className="card" aria-label="Start a run">
      <div className="card-head">
        <h2>Start a run</h2>
        <span className="muted small">Payload (JSON)</span>
      </div>
      <textarea
        className="payload-input mono"
        value={text}
        spellCheck={false}
        onChange={(e) => setText(e.target.value)}
        aria-label="Payload"
      />
      <p className="muted small" data-testid="expected-fields">
        {fields === null
          ? "Sluice cannot name this workflow's payload fields (its payload type is not an object type declared in its file): see its source."
          : `Expected fields: ${fields}.`}
      </p>
      {error ? (
        <div className="notice notice-error" role="alert">
          {error}
        </div>
      ) : null}
      <div className="actions">
        <button className="btn btn-primary" onClick={() => void start()} disabled={busy}>
          Start run
        </button>
      </div>
    </section>
  );
}

/** See the module comment. */
export function WorkflowPage() {
  const name = usePathParam("/workflows/");
  useTitle(name);
  const session = useSession();
  const detail = useApi<ApiWorkflowDetail>(`/api/workflows/${seg(name)}`);
  const diagram = useApi<ApiDiagram>(`/api/workflows/${seg(name)}/diagram`);
  useLiveRefresh(detail.reload, { pollMs: 5000 });
  const now = useNow();
  if (detail.error)
    return (
      <div className="page">
        <LoadError error={detail.error} />
      </div>
    );
  if (!detail.data)
    return (
      <div className="page">
        <div className="empty">Loading…</div>
      </div>
    );
  const { workflow, stats, recentRuns } = detail.data;
  // Named parameters of a main(...), else the payload fields a defineWorkflow's source declares.
  const fields = workflow.params ?? diagram.data?.payloadFields ?? null;
  const rate = stats.successRate === null ? "—" : `${Math.round(stats.successRate * 1000) / 10}%`;
  return (
    <div className="page">
      <nav className="crumbs">
        <Link href="/workflows">Workflows</Link>
        <span>/</span>
        <span>{workflow.name}</span>
      </nav>
      <header className="page-head">
        <div>
          <h1>{workflow.name}</h1>
          <p className="sub mono">
            {workflow.source ?? "registered in-process"}
            {workflow.schedule ? ` · ${workflow.schedule.cron} (${workflow.schedule.timezone})` : ""} · up to{" "}
            {workflow.maxAttempts} attempts
          </p>
        </div>
      </header>
      <div className="stats" aria-label="Statistics">
        <Stat
          label="Success rate"
          value={rate}
          hint={`${stats.succeeded} succeeded · ${stats.failed} failed · ${stats.cancelled} cancelled of the last ${stats.sample} finished`}
        />
        <Stat label="p50 duration" value={duration(stats.p50DurationMs)} />
        <Stat label="p95 duration" value={duration(stats.p95DurationMs)} />
        <Stat
          label="Active now"
          value={String(stats.active)}
          hint={`running or waiting · ${stats.queued} queued · ${stats.scheduled} scheduled`}
        />
      </div>
      {diagram.data ? (
        <section className="card" aria-label="Diagram card">
          <div className="card-head">
            <h2>Diagram</h2>
            <span className="muted small">parsed from {diagram.data.file}</span>
            {diagram.data.diagram.warnings.length ? (
              <span className="chip chip-warn" title={diagram.data.diagram.warnings.map((w) => w.message).join("\n")}>
                {diagram.data.diagram.warnings.length} approximations
              </span>
            ) : null}
          </div>
          <Suspense fallback={<div className="muted small pad">Loading the diagram…</div>}>
            <Diagram diagram={diagram.data.diagram} maxHeight={1100} />
          </Suspense>
        </section>
      ) : diagram.error && diagram.error.status !== 404 ? (
        <LoadError error={diagram.error} />
      ) : null}
      {session.me.scope !== "read" ? (
        <StartRun
          // Remounted once the source's payload fields arrive, so the form starts from them.
          key={`${workflow.name}:${fields ? "fields" : ""}`}
          workflow={workflow.name}
          params={fields}
        />
      ) : null}
      <section className="card flush" aria-label="Recent runs">
        <div className="card-head pad-head">
          <h2>Recent runs</h2>
          <span className="spacer" />
          <Link className="small" href={`/runs?workflow=${seg(workflow.name)}`}>
            All runs →
          </Link>
        </div>
        <RunsTable runs={recentRuns} showWorkflow={false} now={now} />
      </section>
    </div>
  );
}
