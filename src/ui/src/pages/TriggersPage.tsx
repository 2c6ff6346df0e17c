/** Native triggers (MQTT, NATS, …): where each reads from, what it runs, its state, last message and error; pause and resume. */
import { useState } from "react";
import { Link } from "wouter";
import type { ApiTrigger } from "../../../http/api-types";
import { api, ApiError, seg } from "../api/client";
import { useLiveRefresh } from "../api/live";
import { useApi } from "../api/use-api";
import { useSession } from "../app-context";
import { LoadError } from "../components/ErrorBlock";
import { useNow, useTitle } from "../hooks";
import { relative, timestamp } from "../lib/format";

const CHIP: Record<ApiTrigger["status"], string> = {
  running: "chip-ok",
  starting: "chip-ok",
  paused: "chip-warn",
  error: "chip-err",
  stopped: "chip-warn",
};

/** See the module comment. */
export function TriggersPage() {
  useTitle("Triggers");
  const list = useApi<{ triggers: ApiTrigger[] }>("/api/triggers");
  useLiveRefresh(list.reload, { pollMs: 5_000 });
  const now = useNow(5000);
  const session = useSession();
  const [error, setError] = useState<string | null>(null);
  const toggle = async (t: ApiTrigger) => {
    setError(null);
    try {
      await api(`/api/triggers/${seg(t.id)}/${t.paused ? "resume" : "pause"}`, { method: "POST" });
      list.reload();
    } catch (e) {
      setError((e as ApiError).message);
    }
  };
  return (
    <div className="page">
      <header className="page-head">
        <div>
          <h1>Triggers</h1>
          <p className="sub">Messages become runs; each is acknowledged only once its run is stored.</p>
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
        ) : list.data.triggers.length === 0 ? (
          <div className="empty">No triggers. Add rows to sluice.json "triggers" or to a pipeline's pipeline.json.</div>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th>Trigger</th>
                <th>Source</th>
                <th>Runs</th>
                <th>State</th>
                <th>Messages</th>
                <th>Last message</th>
                <th>Last error</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.data.triggers.map((t) => (
                <tr key={t.id} data-trigger={t.id}>
                  <td className="strong">
                    {t.id} <span className="muted small">{t.kind}</span>
                  </td>
                  <td>
                    <code>{t.source}</code>
                  </td>
                  <td>
                    {t.target.type === "pipeline" ? (
                      <span>{t.target.name}</span>
                    ) : (
                      <Link href={`/workflows/${seg(t.target.name)}`}>{t.target.name}</Link>
                    )}
                  </td>
                  <td>
                    <span className={`chip ${CHIP[t.status]}`}>{t.status}</span>
                  </td>
                  <td className="num">{t.messages}</td>
                  <td title={t.lastMessage ?? ""}>
                    {t.lastMessageAt ? (
                      <>
                        {relative(t.lastMessageAt, now)}{" "}
                        {t.lastRunId ? <Link href={`/runs/${seg(t.lastRunId)}`}>run</Link> : null}
                      </>
                    ) : (
                      <span className="muted">never</span>
                    )}
                  </td>
                  <td title={timestamp(t.lastErrorAt)} className="small">
                    {t.lastError ?? <span className="muted">—</span>}
                  </td>
                  <td className="num">
                    {session.me.scope !== "read" ? (
                      <button className="btn btn-sm" onClick={() => void toggle(t)}>
                        {t.paused ? "Resume" : "Pause"}
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
