/**
 * One pipeline: its lineage graph with live status on each script, actions on a selected
 * step (run it alone, run it with its downstream, run up to here), the partitions written
 * per asset (a materialized lake table adds its partition grid, preview, snapshots, schema
 * versions and column lineage), open joins and debounce windows, and the latest dispatch decisions.
 */
import { lazy, Suspense, useEffect, useMemo, useRef, useState } from "react";
import { Link, useLocation } from "wouter";
import { DECISION_OUTCOMES } from "../../../pipeline/decision-outcomes";
import type { PipelineGraphJson } from "../../../pipeline/runtime/render";
import type { PipelineStatus } from "../../../pipeline/runtime/status";
import { api, type ApiError, seg } from "../api/client";
import { useLiveRefresh } from "../api/live";
import { useApi } from "../api/use-api";
import { useSession } from "../app-context";
import { BackfillGrid } from "../components/BackfillGrid";
import { LoadError } from "../components/ErrorBlock";
import { LakeTable } from "../components/LakeTable";
import { TextWithTimes } from "../components/TextWithTimes";
import { useNow, useTitle } from "../hooks";
import { isoOf, relative as relativeIso, timestamp as timestampIso } from "../lib/format";
import { type PipelineNode, pipelineView } from "../lib/pipeline-view";
import "../styles/pipelines.css";

/** The format helpers take ISO strings; pipeline status carries epoch milliseconds. */
const relative = (ms: number, now: number) => relativeIso(isoOf(ms), now);
const timestamp = (ms: number) => timestampIso(isoOf(ms));

const PipelineGraph = lazy(() => import("../components/PipelineGraph"));

function Actions({ folder, node, graph }: { folder: string; node: PipelineNode; graph: PipelineGraphJson }) {
  const [partition, setPartition] = useState("");
  const [argsText, setArgsText] = useState("{}");
  const [from, setFrom] = useState("");
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string; run?: string } | null>(null);
  const target = node.kind === "script" ? node.path : node.kind === "asset" ? node.uri : null;
  if (!target) return null;
  const withPartition = partition.trim() ? { partition: partition.trim() } : {};
  const act = async (what: string, call: () => Promise<{ run: string | null; steps?: string[] }>) => {
    setBusy(true);
    setMessage(null);
    try {
      const res = await call();
      setMessage({
        ok: true,
        text: `${what}${res.steps ? `: ${res.steps.map((s) => s.split("/").pop()).join(" → ")}` : ""}`,
        run: res.run ?? undefined,
      });
    } catch (e) {
      setMessage({ ok: false, text: (e as ApiError).message });
    } finally {
      setBusy(false);
    }
  };
  const runScript = (cascade: boolean) =>
    act(cascade ? "Started the step; its downstream runs as it writes" : "Started the step alone", () => {
      let args: unknown;
      try {
        args = JSON.parse(argsText || "{}");
      } catch (e) {
        return Promise.reject({ message: `The arguments are not JSON: ${(e as Error).message}` });
      }
      return api(`/api/pipelines/scripts/${target}/run`, { method: "POST", body: { cascade, args, ...withPartition } });
    });
  const upTo = () =>
    act("Started the plan", () =>
      api(`/api/pipelines/plan`, {
        method: "POST",
        body: { folder, to: [target], ...(from ? { from } : {}), ...withPartition },
      }),
    );
  return (
    <div className="pl-actions" aria-label="Run actions">
      <label className="small muted pl-partition">
        Partition
        <input
          className="mono"
          value={partition}
          placeholder="resolved automatically"
          onChange={(e) => setPartition(e.target.value)}
          aria-label="Partition"
        />
      </label>
      {node.kind === "script" ? (
        <textarea
          className="mono small pl-args"
          value={argsText}
          spellCheck={false}
          onChange={(e) => setArgsText(e.target.value)}
          aria-label="Arguments (JSON)"
          rows={2}
        />
      ) : null}
      <div className="actions">
        {node.kind === "script" ? (
          <>
            <button className="btn btn-sm" disabled={busy} onClick={() => void runScript(false)}>
              Run step
            </button>
            <button className="btn btn-sm" disabled={busy} onClick={() => void runScript(true)}>
              Run + downstream
            </button>
          </>
        ) : null}
        <button className="btn btn-sm btn-primary" disabled={busy} onClick={() => void upTo()}>
          Run up to here
        </button>
        <select value={from} onChange={(e) => setFrom(e.target.value)} aria-label="Start from" className="small">
          <option value="">from the pipeline's start</option>
          {graph.scripts.map((s) => (
            <option key={s.path} value={s.path}>
              from {s.path.split("/").pop()}
            </option>
          ))}
        </select>
      </div>
      {message ? (
        <div className={`notice ${message.ok ? "notice-ok" : "notice-error"}`} role="status">
          {message.text} {message.run ? <Link href={`/runs/${seg(message.run)}`}>open run →</Link> : null}
        </div>
      ) : null}
    </div>
  );
}

function Details({
  node,
  status,
  folder,
  graph,
  canRun,
}: {
  node: PipelineNode;
  status: PipelineStatus | null;
  folder: string;
  graph: PipelineGraphJson;
  canRun: boolean;
}) {
  const now = useNow(5000);
  if (node.kind === "trigger") {
    return (
      <p className="small">
        {node.configured
          ? `This trigger runs the script: ${node.label}.`
          : `Not configured: add a row for this script in ${folder}/pipeline.json (for a schedule, that is where the cron goes).`}
      </p>
    );
  }
  const script = node.kind === "script" ? graph.scripts.find((s) => s.path === node.path) : undefined;
  const parts = node.kind === "asset" ? (status?.assets.find((a) => a.uri === node.uri)?.partitions ?? []) : [];
  return (
    <div>
      {script ? (
        <>
          <p className="mono small">{script.path}</p>
          {script.labels.length ? <p className="small">{script.labels.join(" · ")}</p> : null}
          <p className="small">
            Last run:{" "}
            {node.kind === "script" && node.runId ? (
              <Link href={`/runs/${seg(node.runId)}`}>{node.status}</Link>
            ) : (
              <span className="muted">never</span>
            )}
            {node.kind === "script" && node.trigger ? (
              <span className="muted">
                {" "}
                · {node.trigger}
                {node.partition ? ` · partition ${node.partition}` : ""}
              </span>
            ) : null}
          </p>
        </>
      ) : null}
      {node.kind === "asset" ? (
        parts.length === 0 ? (
          <p className="muted small">Not written yet.</p>
        ) : (
          <table className="table small" aria-label="Partitions">
            <thead>
              <tr>
                <th>Partition</th>
                <th>Written</th>
                <th>By run</th>
              </tr>
            </thead>
            <tbody>
              {parts.map((p) => (
                <tr key={`${p.uri} ${p.partition}`}>
                  <td className="mono">{p.partition ?? "—"}</td>
                  <td title={timestamp(p.at)}>{relative(p.at, now)}</td>
                  <td>
                    <Link href={`/runs/${seg(p.run)}`}>{p.script.split("/").pop()}</Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
      {canRun ? <Actions folder={folder} node={node} graph={graph} /> : null}
    </div>
  );
}

/** See the module comment. */
export function PipelinePage() {
  const [location] = useLocation();
  const folder = decodeURIComponent(location.replace(/^\/pipelines\/?/, "").replace(/\/+$/, ""));
  useTitle(`Pipeline ${folder}`);
  const session = useSession();
  const graphs = useApi<{ pipelines: PipelineGraphJson[] }>("/api/pipelines");
  const [kind, setKind] = useState("");
  const [runFilter, setRunFilter] = useState("");
  const filter = `${kind ? `&decisionKind=${encodeURIComponent(kind)}` : ""}${runFilter.trim() ? `&decisionRun=${encodeURIComponent(runFilter.trim())}` : ""}`;
  const status = useApi<PipelineStatus>(`/api/pipelines/status?folder=${seg(folder)}${filter}`);
  useLiveRefresh(status.reload, { pollMs: 3000 });
  const now = useNow(5000);
  const [selected, setSelected] = useState<PipelineNode | null>(null);
  const graph = graphs.data?.pipelines.find((p) => p.folder === folder) ?? null;
  const view = useMemo(() => (graph ? pipelineView(graph, status.data) : null), [graph, status.data]);
  const current = selected && view ? (view.nodes.find((n) => n.id === selected.id) ?? null) : null;
  const side = useRef<HTMLElement>(null);
  // Under the graph (a laptop screen), a click brings the selection's panel into view.
  useEffect(() => {
    if (selected) side.current?.scrollIntoView?.({ block: "nearest", behavior: "smooth" });
  }, [selected]);
  if (graphs.error)
    return (
      <div className="page">
        <LoadError error={graphs.error} />
      </div>
    );
  if (!graphs.data)
    return (
      <div className="page">
        <div className="empty">Loading…</div>
      </div>
    );
  if (!graph || !view)
    return (
      <div className="page">
        <div className="notice notice-error">
          No pipeline in {folder}. <Link href="/pipelines">All pipelines</Link>
        </div>
      </div>
    );
  const s = status.data;
  return (
    <div className="page">
      <nav className="crumbs">
        <Link href="/pipelines">Pipelines</Link>
        <span>/</span>
        <span>{folder}</span>
      </nav>
      <header className="page-head">
        <div>
          <h1>{folder}</h1>
          <p className="sub">
            {graph.scripts.length} scripts · {graph.assets.length} assets
            {graph.ok
              ? ""
              : graph.scripts.every((x) => x.error !== null)
                ? " · not loaded: fix the errors below"
                : ` · ${graph.scripts.filter((x) => x.error !== null).length} script(s) not loaded, the others run`}
          </p>
        </div>
      </header>
      {graph.diagnostics.length ? (
        <div className={`notice ${graph.ok ? "notice-warn" : "notice-error"}`} aria-label="Problems">
          <ul>
            {graph.diagnostics.map((d, i) => (
              <li key={i} className="small">
                <span className="mono">
                  {d.file}:{d.line}
                </span>{" "}
                {d.severity}: {d.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="pl-layout">
        <section className="card" aria-label="Pipeline graph">
          <Suspense fallback={<div className="muted small pad">Loading the graph…</div>}>
            <PipelineGraph view={view} selected={current?.id ?? null} onSelect={setSelected} />
          </Suspense>
        </section>
        <section className="card pl-side" aria-label="Selection" ref={side}>
          <div className="card-head">
            <h2>{current ? current.label : "Select a node"}</h2>
          </div>
          {current ? (
            <Details
              node={current}
              status={s}
              folder={folder}
              graph={graph}
              canRun={
                session.me.scope !== "read" &&
                !(current.kind === "script" && graph.scripts.find((x) => x.path === current.path)?.error)
              }
            />
          ) : (
            <p className="muted small">
              Click a script to run it, with its downstream, or up to it; click an asset for its partitions.
            </p>
          )}
        </section>
      </div>
      {current?.kind === "asset" && /^ducklake:\/\/[^/]+\/[^/]+$/.test(current.uri) ? (
        <LakeTable key={current.uri} uri={current.uri} />
      ) : null}
      {s && (s.joins.length || s.debounces.some((d) => d.open)) ? (
        <section className="card" aria-label="Open joins and debounce windows">
          <div className="card-head">
            <h2>Waiting</h2>
          </div>
          <ul className="small">
            {s.joins.map((j) => (
              <li key={`${j.script} ${j.partition}`}>
                <span className="mono">{j.script.split("/").pop()}</span> [{j.partition}]: has {j.have.length}, waiting
                for {j.missing.join(", ") || "nothing"}
              </li>
            ))}
            {s.debounces
              .filter((d) => d.open)
              .map((d) => (
                <li key={`${d.script} ${d.partition}`}>
                  <span className="mono">{d.script.split("/").pop()}</span> debounced: {d.writes} write(s), runs{" "}
                  {relative(d.until, now)}
                </li>
              ))}
          </ul>
        </section>
      ) : null}
      <BackfillGrid folder={folder} canOperate={session.me.scope !== "read"} />
      <section className="card flush" aria-label="Dispatch decisions">
        <div className="card-head pad-head">
          <h2>Dispatch decisions</h2>
          <div className="actions small">
            <select value={kind} onChange={(e) => setKind(e.target.value)} aria-label="Decision kind">
              <option value="">every kind</option>
              {DECISION_OUTCOMES.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
            <input
              className="mono"
              value={runFilter}
              placeholder="run id"
              onChange={(e) => setRunFilter(e.target.value)}
              aria-label="Decisions of run"
            />
          </div>
        </div>
        {!s || s.decisions.length === 0 ? (
          <div className="empty">
            {kind || runFilter.trim()
              ? "No decisions match the filter."
              : "No decisions yet: they appear when a script of this pipeline writes an asset."}
          </div>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th>When</th>
                <th>From</th>
                <th>To</th>
                <th>Decision</th>
                <th>Why</th>
              </tr>
            </thead>
            <tbody>
              {s.decisions.map((d, i) => (
                <tr key={i} data-outcome={d.outcome}>
                  <td title={timestamp(d.at)}>{relative(d.at, now)}</td>
                  <td className="mono small">{d.producer ? d.producer.split("/").pop() : "watchdog"}</td>
                  <td className="mono small">{d.subscriber.split("/").pop()}</td>
                  <td>
                    {d.run ? <Link href={`/runs/${seg(d.run)}`}>{d.outcome}</Link> : d.outcome}
                    {d.partition ? <span className="muted"> [{d.partition}]</span> : null}
                  </td>
                  <td className="small muted">{d.reason ? <TextWithTimes text={d.reason} /> : null}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
