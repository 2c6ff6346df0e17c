/**
 * One release: who published it and when, what it changed against the release before it
 * (workflows, schedules, triggers, files: added, changed, removed), and the line diff of each
 * file it changed.
 */
import { useMemo } from "react";
import { Link } from "wouter";
import type { ApiRelease, ApiReleaseDiff } from "../../../http/api-types";
import { useApi } from "../api/use-api";
import { LoadError } from "../components/ErrorBlock";
import { usePathParam, useNow, useTitle } from "../hooks";
import { relative, timestamp } from "../lib/format";
import { lineDiff } from "../lib/line-diff";
import { CHANGE_KINDS } from "../lib/release-view";

const MARK = { added: "+", changed: "~", removed: "−" } as const;

function FileDiff({ file }: { file: ApiReleaseDiff["files"][number] }) {
  const rows = useMemo(() => lineDiff(file.beforeText, file.afterText), [file]);
  const missing =
    (file.before !== null && file.beforeText === null) || (file.after !== null && file.afterText === null);
  return (
    <section className="card flush" aria-label={`Diff of ${file.path}`} data-file={file.path}>
      <div className="card-head diff-head">
        <h3 className="mono">
          {MARK[file.change]} {file.path}
        </h3>
        <span className="muted small">{file.change}</span>
      </div>
      {missing ? <p className="muted small pad">Text not shown (too large or not stored).</p> : null}
      <table className="diff mono">
        <tbody>
          {rows.map((r, i) => (
            <tr key={i} className={`diff-${r.kind}`}>
              <td className="diff-no">{r.oldNo ?? ""}</td>
              <td className="diff-no">{r.newNo ?? ""}</td>
              <td className="diff-mark">{r.kind === "add" ? "+" : r.kind === "del" ? "-" : " "}</td>
              <td className="diff-text">{r.text}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** See the module comment. */
export function ReleasePage() {
  const id = usePathParam("/releases/");
  useTitle(`Release ${id}`);
  const release = useApi<ApiRelease>(`/api/releases/${encodeURIComponent(id)}`);
  const diff = useApi<ApiReleaseDiff>(`/api/releases/${encodeURIComponent(id)}/diff`);
  const now = useNow(10_000);
  if (release.error)
    return (
      <div className="page">
        <LoadError error={release.error} />
      </div>
    );
  const r = release.data;
  if (!r)
    return (
      <div className="page">
        <div className="empty">Loading…</div>
      </div>
    );
  return (
    <div className="page">
      <nav className="crumbs">
        <Link href="/releases">Releases</Link>
      </nav>
      <header className="page-head">
        <div>
          <h1>Release {r.id}</h1>
          {/* Only once the diff has loaded: before, "The first release." would show for every release. */}
          {diff.data ? (
            <p className="sub">
              {diff.data.previous ? `Changes against release ${diff.data.previous}.` : "The first release."}
            </p>
          ) : null}
        </div>
      </header>
      <dl className="facts">
        <div>
          <dt>Published by</dt>
          <dd>{r.createdBy ?? "—"}</dd>
        </div>
        <div>
          <dt>Published</dt>
          <dd title={timestamp(r.createdAt)}>{relative(r.createdAt, now)}</dd>
        </div>
        <div>
          <dt>Rollback of</dt>
          <dd>
            {r.rollbackOf !== null ? <Link href={`/releases/${r.rollbackOf}`}>release {r.rollbackOf}</Link> : "—"}
          </dd>
        </div>
        <div>
          <dt>Workflows</dt>
          <dd>{r.manifest.workflows.length}</dd>
        </div>
        <div>
          <dt>Modules</dt>
          <dd>{r.manifest.modules.length}</dd>
        </div>
      </dl>
      <section className="card" aria-label="Changes card">
        <div className="card-head">
          <h2>What changed</h2>
        </div>
        {CHANGE_KINDS.map((kind) => {
          const set = r.changes[kind];
          const items = set
            ? [
                ...set.added.map((n) => ["added", n] as const),
                ...set.changed.map((n) => ["changed", n] as const),
                ...set.removed.map((n) => ["removed", n] as const),
              ]
            : [];
          return (
            <div key={kind} className="release-kind" data-kind={kind}>
              <h3>{kind}</h3>
              {items.length === 0 ? (
                <p className="muted small">no change</p>
              ) : (
                <ul className="release-changes">
                  {items.map(([change, name]) => (
                    <li key={`${change}:${name}`} className={`change-${change}`}>
                      <span className="mono">{MARK[change]}</span> {name}
                    </li>
                  ))}
                </ul>
              )}
            </div>
          );
        })}
      </section>
      {diff.error ? <LoadError error={diff.error} /> : null}
      {diff.data?.files.map((f) => (
        <FileDiff key={f.path} file={f} />
      ))}
    </div>
  );
}
