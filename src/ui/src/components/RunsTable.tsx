/** Runs as a table: status, workflow, id, started by, created, duration; rows link to the run page. */
import { Link } from "wouter";
import type { ApiRun } from "../../../http/api-types";
import { duration, relative, shortId, timestamp } from "../lib/format";
import { runDuration } from "../lib/run-duration";
import { StatusBadge } from "./StatusBadge";
import { seg } from "../api/client";
import { StartedBy } from "./StartedBy";

/** See the module comment. */
export function RunsTable({ runs, showWorkflow = true, now }: { runs: ApiRun[]; showWorkflow?: boolean; now: number }) {
  if (runs.length === 0) return <div className="empty">No runs match.</div>;
  return (
    <table className="table runs-table">
      <thead>
        <tr>
          <th>Status</th>
          {showWorkflow ? <th>Workflow</th> : null}
          <th>Run</th>
          <th>Started by</th>
          <th>Created</th>
          <th className="num">Duration</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => (
          <tr key={r.id} data-run={r.id} data-status={r.status}>
            <td>
              <StatusBadge status={r.status} small />
            </td>
            {showWorkflow ? (
              <td className="strong">
                <Link href={`/workflows/${seg(r.workflow)}`}>{r.workflow}</Link>
                {r.task ? <span className="muted"> · {r.task}</span> : null}
              </td>
            ) : null}
            <td>
              <Link className="mono run-link" href={`/runs/${seg(r.id)}`} title={r.id}>
                {shortId(r.id)}
              </Link>
              {r.attempt > 1 ? (
                <span className="chip" title="attempts">
                  attempt {r.attempt}/{r.maxAttempts}
                </span>
              ) : null}
            </td>
            <td>
              <StartedBy run={r} />
            </td>
            <td title={timestamp(r.createdAt)}>{relative(r.createdAt, now)}</td>
            <td className="num mono">{duration(runDuration(r, now))}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
