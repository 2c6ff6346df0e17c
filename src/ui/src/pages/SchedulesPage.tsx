/** Cron schedules: next fire times, last fire, pause and resume. */
import { useState } from "react";
import { Link } from "wouter";
import type { ApiSchedule } from "../../../http/api-types";
import { api, ApiError, seg } from "../api/client";
import { useLiveRefresh } from "../api/live";
import { useApi } from "../api/use-api";
import { useSession } from "../app-context";
import { LoadError } from "../components/ErrorBlock";
import { useNow, useTitle } from "../hooks";
import { relative, timestamp } from "../lib/format";

/** See the module comment. */
export function SchedulesPage() {
  useTitle("Schedules");
  const list = useApi<{ schedules: ApiSchedule[] }>("/api/schedules");
  useLiveRefresh(list.reload, { pollMs: 15_000 });
  const now = useNow(5000);
  const session = useSession();
  const [error, setError] = useState<string | null>(null);
  const toggle = async (s: ApiSchedule) => {
    setError(null);
    try {
      await api(`/api/schedules/${seg(s.workflow)}/${s.paused ? "resume" : "pause"}`, { method: "POST" });
      list.reload();
    } catch (e) {
      setError((e as ApiError).message);
    }
  };
  return (
    <div className="page">
      <header className="page-head">
        <div>
          <h1>Schedules</h1>
          <p className="sub">Cron schedules fire once per tick, across all servers.</p>
        </div>
      </header>
      {list.error ? <LoadError error={list.error} /> : null}
      {error ? (
        <div className="notice notice-error" role="alert">
          {error}
        </div>
      ) : null}
      <section className="card flush">
        {!list.data ? (
          <div className="empty">Loading…</div>
        ) : list.data.schedules.length === 0 ? (
          <div className="empty">No schedules. Give a workflow a schedule, e.g. schedule: "0 9 * * 1-5".</div>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th>Workflow</th>
                <th>Cron</th>
                <th>Next fire</th>
                <th>Then</th>
                <th>Last fired</th>
                <th>State</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.data.schedules.map((s) => (
                <tr key={s.workflow} data-schedule={s.workflow}>
                  <td className="strong">
                    <Link href={`/workflows/${seg(s.workflow)}`}>{s.workflow}</Link>
                  </td>
                  <td>
                    <code>{s.cron}</code> <span className="muted small">{s.timezone}</span>
                  </td>
                  <td title={timestamp(s.nextAt)}>
                    {s.paused ? (
                      <span className="muted">paused</span>
                    ) : (
                      `${relative(s.nextAt, now)} · ${timestamp(s.nextAt)}`
                    )}
                  </td>
                  <td className="muted small">{s.upcoming.slice(1, 4).map(timestamp).join(", ") || "—"}</td>
                  <td title={timestamp(s.lastFiredAt)}>
                    {s.lastFiredAt ? relative(s.lastFiredAt, now) : <span className="muted">never</span>}
                  </td>
                  <td>
                    {s.paused ? (
                      <span className="chip chip-warn">Paused</span>
                    ) : (
                      <span className="chip chip-ok">Active</span>
                    )}
                  </td>
                  <td className="num">
                    {session.me.scope !== "read" ? (
                      <button className="btn btn-sm" onClick={() => void toggle(s)}>
                        {s.paused ? "Resume" : "Pause"}
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
