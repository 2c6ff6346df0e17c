/** Releases published by `sluice deploy`: who, when, what changed; each links to its page with the diff. */
import { Link } from "wouter";
import type { ApiReleaseList } from "../../../http/api-types";
import { useLiveRefresh } from "../api/live";
import { useApi } from "../api/use-api";
import { LoadError } from "../components/ErrorBlock";
import { useNow, useTitle } from "../hooks";
import { relative, timestamp } from "../lib/format";
import { changeSummary } from "../lib/release-view";

/** See the module comment. */
export function ReleasesPage() {
  useTitle("Releases");
  const list = useApi<ApiReleaseList>("/api/releases");
  useLiveRefresh(list.reload, { pollMs: 15_000 });
  const now = useNow(10_000);
  return (
    <div className="page">
      <header className="page-head">
        <div>
          <h1>Releases</h1>
          <p className="sub">
            Published by <code>sluice deploy</code>; workers started with <code>--release</code> run the current one.
          </p>
        </div>
      </header>
      {list.error ? <LoadError error={list.error} /> : null}
      <section className="card flush">
        {!list.data ? (
          <div className="empty">Loading…</div>
        ) : list.data.releases.length === 0 ? (
          <div className="empty">
            No releases. Publish one with <code>sluice deploy --db …</code> from the project folder.
          </div>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th>Release</th>
                <th>Published</th>
                <th>By</th>
                <th>What changed</th>
              </tr>
            </thead>
            <tbody>
              {list.data.releases.map((r) => (
                <tr key={r.id} data-release={r.id}>
                  <td className="strong">
                    <Link href={`/releases/${r.id}`}>Release {r.id}</Link>
                    {r.id === list.data!.current ? <span className="chip chip-ok release-chip">current</span> : null}
                    {r.rollbackOf !== null ? <span className="muted small"> rollback to {r.rollbackOf}</span> : null}
                  </td>
                  <td title={timestamp(r.createdAt)}>{relative(r.createdAt, now)}</td>
                  <td>{r.createdBy ?? "—"}</td>
                  <td>{changeSummary(r.changes)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
