/** All runs, newest first: status filters, workflow filter, child tasks on request, live updates. */
import { useMemo, useState } from "react";
import { useSearchParams } from "wouter";
import type { ApiRunList, ApiRunStatus, ApiWorkflowSummary } from "../../../http/api-types";
import { useLiveRefresh } from "../api/live";
import { useApi } from "../api/use-api";
import { LoadError } from "../components/ErrorBlock";
import { RunsTable } from "../components/RunsTable";
import { useNow, useTitle } from "../hooks";
import { RUN_STATUSES, selectedStatus, statusAliases, statusLabel } from "../lib/status";

const PAGE = 50;

/** See the module comment. */
export function RunsPage() {
  useTitle("Runs");
  const [params, setParams] = useSearchParams();
  const status = params.get("status");
  // `?status=dead` (Tako's name) selects the Failed filter; the API takes the alias as typed.
  const selected = selectedStatus(status);
  const workflow = params.get("workflow");
  const tasks = params.get("tasks") === "1";
  const [limit, setLimit] = useState(PAGE);
  const query = useMemo(() => {
    const q = new URLSearchParams({ limit: String(limit) });
    if (status) q.set("status", status);
    if (workflow) q.set("workflow", workflow);
    if (!tasks) q.set("topLevel", "true");
    return `/api/runs?${q}`;
  }, [status, workflow, tasks, limit]);
  const runs = useApi<ApiRunList>(query);
  const workflows = useApi<{ workflows: ApiWorkflowSummary[] }>("/api/workflows");
  useLiveRefresh(runs.reload, { pollMs: 5000 });
  const now = useNow();
  const set = (key: string, value: string | null) =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      if (value) next.set(key, value);
      else next.delete(key);
      return next;
    });
  const filters: Array<ApiRunStatus | null> = [null, ...RUN_STATUSES];
  return (
    <div className="page">
      <header className="page-head">
        <div>
          <h1>Runs</h1>
          <p className="sub">Every run, newest first. Updates live.</p>
        </div>
      </header>
      <div className="toolbar">
        <div className="segmented" role="group" aria-label="Status">
          {filters.map((s) => {
            const on = status === null ? s === null : selected === s;
            const aliases = s ? statusAliases(s) : [];
            return (
              <button
                key={s ?? "all"}
                className={on ? "on" : ""}
                aria-pressed={on}
                onClick={() => set("status", s)}
                data-filter={s ?? "all"}
                title={
                  aliases.length
                    ? `Tako calls this status ${aliases.join(", ")} (?status=${aliases[0]} works too)`
                    : undefined
                }
              >
                {s ? (
                  <>
                    <span className={`dot st-${s}`} /> {statusLabel(s)}
                    {aliases.map((a) => (
                      <span key={a} className="alias" data-alias={a}>
                        {a}
                      </span>
                    ))}
                  </>
                ) : (
                  "All"
                )}
              </button>
            );
          })}
        </div>
        <span className="spacer" />
        <select aria-label="Workflow" value={workflow ?? ""} onChange={(e) => set("workflow", e.target.value || null)}>
          <option value="">All workflows</option>
          {(workflows.data?.workflows ?? []).map((w) => (
            <option key={w.name} value={w.name}>
              {w.name}
            </option>
          ))}
        </select>
        <label className="check">
          <input type="checkbox" checked={tasks} onChange={(e) => set("tasks", e.target.checked ? "1" : null)} />{" "}
          Include child tasks
        </label>
      </div>
      {runs.error ? <LoadError error={runs.error} /> : null}
      <section className="card flush">
        {runs.data ? <RunsTable runs={runs.data.runs} now={now} /> : <div className="empty">Loading…</div>}
      </section>
      {runs.data?.nextCursor ? (
        <div className="more">
          <button className="btn" onClick={() => setLimit((l) => Math.min(500, l + PAGE))} disabled={limit >= 500}>
            {limit >= 500 ? "Narrow the filters to see older runs" : "Show more"}
          </button>
        </div>
      ) : null}
    </div>
  );
}
