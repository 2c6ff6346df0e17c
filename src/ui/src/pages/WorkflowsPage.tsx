/** Every published workflow with its latest run and schedule. */
import { Link } from "wouter";
import type { ApiWorkflowSummary } from "../../../http/api-types";
import { seg } from "../api/client";
import { useLiveRefresh } from "../api/live";
import { useApi } from "../api/use-api";
import { LoadError } from "../components/ErrorBlock";
import { StatusBadge } from "../components/StatusBadge";
import { useNow, useTitle } from "../hooks";
import { relative } from "../lib/format";

/** See the module comment. */
export function WorkflowsPage() {
  useTitle("Workflows");
  const list = useApi<{ workflows: ApiWorkflowSummary[] }>("/api/workflows");
  useLiveRefresh(list.reload, { pollMs: 10_000 });
  const now = useNow(10_000);
  return (
    <div className="page">
      <header className="page-head">
        <div>
          <h1>Workflows</h1>
          <p className="sub">Published by the running servers and workers.</p>
        </div>
      </header>
      {list.error ? <LoadError error={list.error} /> : null}
      <section className="card flush">
        {!list.data ? (
          <div className="empty">Loading…</div>
        ) : list.data.workflows.length === 0 ? (
          <div className="empty">No workflows yet: add one under workflows/ and run sluice dev.</div>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th>Workflow</th>
                <th>Last run</th>
                <th>Schedule</th>
                <th>Source</th>
              </tr>
            </thead>
            <tbody>
              {list.data.workflows.map((w) => (
                <tr key={w.name}>
                  <td className="strong">
                    <Link href={`/workflows/${seg(w.name)}`}>{w.name}</Link>
                  </td>
                  <td>
                    {w.lastRun ? (
                      <Link href={`/runs/${seg(w.lastRun.id)}`} className="inline">
                        <StatusBadge status={w.lastRun.status} small />{" "}
                        <span className="muted">{relative(w.lastRun.createdAt, now)}</span>
                      </Link>
                    ) : (
                      <span className="muted">never</span>
                    )}
                  </td>
                  <td className="mono">{w.schedule ? w.schedule.cron : <span className="muted">—</span>}</td>
                  <td className="mono muted">{w.source ?? "in-process"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
