/** Every pipeline folder of the project, with its scripts and problems. */
import { Link } from "wouter";
import type { PipelineGraphJson } from "../../../pipeline/runtime/render";
import { useApi } from "../api/use-api";
import { LoadError } from "../components/ErrorBlock";
import { useTitle } from "../hooks";

/** See the module comment. */
export function PipelinesPage() {
  useTitle("Pipelines");
  const list = useApi<{ pipelines: PipelineGraphJson[] }>("/api/pipelines");
  return (
    <div className="page">
      <header className="page-head">
        <div>
          <h1>Pipelines</h1>
          <p className="sub">Folders of scripts marked // pipeline, wired by the assets they read and write.</p>
        </div>
      </header>
      {list.error ? <LoadError error={list.error} /> : null}
      <section className="card flush">
        {!list.data ? (
          <div className="empty">Loading…</div>
        ) : list.data.pipelines.length === 0 ? (
          <div className="empty">No pipelines: mark scripts of a folder with a // pipeline line.</div>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th>Folder</th>
                <th>Scripts</th>
                <th>Assets</th>
                <th>Problems</th>
              </tr>
            </thead>
            <tbody>
              {list.data.pipelines.map((p) => {
                const errors = p.diagnostics.filter((d) => d.severity === "error").length;
                const warnings = p.diagnostics.length - errors;
                return (
                  <tr key={p.folder} data-pipeline={p.folder}>
                    <td className="strong">
                      <Link href={`/pipelines/${p.folder}`}>{p.folder || "."}</Link>
                    </td>
                    <td>{p.scripts.map((s) => s.path.split("/").pop()).join(", ")}</td>
                    <td>{p.assets.length}</td>
                    <td>
                      {errors ? <span className="chip chip-err">{errors} error(s): not loaded</span> : null}
                      {warnings ? <span className="chip chip-warn">{warnings} warning(s)</span> : null}
                      {!errors && !warnings ? <span className="muted">none</span> : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
