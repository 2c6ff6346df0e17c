/**
 * A materialized lake table (`ducklake://<lake>/<table>`) on the pipeline page: its partition
 * grid (snapshot, rows, time, data tests), a read-only preview of its rows (whole table or one
 * partition, at the latest or any older snapshot: time travel), the snapshots that touched it,
 * its captured schema versions and its column lineage. Everything comes from
 * `GET /api/lake/table` and `GET /api/lake/table/preview`.
 */
import { useState } from "react";
import { Link } from "wouter";
import type { LakeAssetDetail, LakePreview } from "../../../pipeline/runtime/lake-asset";
import { seg } from "../api/client";
import { useApi } from "../api/use-api";
import { useNow } from "../hooks";
import { isoOf, relative, timestamp } from "../lib/format";
import { LoadError } from "./ErrorBlock";

type Tab = "partitions" | "preview" | "snapshots" | "schema" | "lineage";
const TABS: ReadonlyArray<[Tab, string]> = [
  ["partitions", "Partitions"],
  ["preview", "Preview"],
  ["snapshots", "Snapshots"],
  ["schema", "Schema"],
  ["lineage", "Lineage"],
];

/** A cell value as text (objects as JSON, null as an em dash). */
function cell(v: unknown): string {
  if (v === null || v === undefined) return "—";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

function Partitions({ detail, now, onPreview }: { detail: LakeAssetDetail; now: number; onPreview(p: string): void }) {
  if (detail.partitions.length === 0) return <p className="muted small">No managed write recorded yet.</p>;
  return (
    <table className="table small" aria-label="Lake partitions">
      <thead>
        <tr>
          <th>Partition</th>
          <th>Snapshot</th>
          <th>Rows</th>
          <th>Written</th>
          <th>Tests</th>
          <th>Run</th>
        </tr>
      </thead>
      <tbody>
        {detail.partitions.map((p) => {
          const tests = p.tests ?? [];
          const failed = tests.filter((t) => !t.passed).length;
          return (
            <tr key={p.partition ?? ""} data-partition={p.partition ?? ""}>
              <td className="mono">
                {p.partition ? (
                  <button
                    className="link-btn mono"
                    onClick={() => onPreview(p.partition!)}
                    title="Preview this partition"
                  >
                    {p.partition}
                  </button>
                ) : (
                  "whole table"
                )}
              </td>
              <td>{p.snapshot_id}</td>
              <td>{p.rows}</td>
              <td title={timestamp(isoOf(p.at))}>{relative(isoOf(p.at), now)}</td>
              <td title={tests.map((t) => `${t.passed ? "✓" : "✗"} ${t.test}`).join("\n")}>
                {tests.length === 0 ? (
                  <span className="muted">none</span>
                ) : (
                  <span className={`chip ${failed ? "chip-err" : "chip-ok"}`}>
                    {tests.length - failed}/{tests.length} passed
                  </span>
                )}
              </td>
              <td>
                <Link href={`/runs/${seg(p.run)}`}>open</Link>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function Preview({
  detail,
  partition,
  snapshot,
  setPartition,
  setSnapshot,
}: {
  detail: LakeAssetDetail;
  partition: string;
  snapshot: string;
  setPartition(p: string): void;
  setSnapshot(s: string): void;
}) {
  const query = new URLSearchParams({ uri: detail.uri, limit: "50" });
  if (partition) query.set("partition", partition);
  if (snapshot) query.set("snapshot", snapshot);
  const preview = useApi<LakePreview>(`/api/lake/table/preview?${query.toString()}`);
  const partitions = detail.partitions.map((p) => p.partition).filter((p): p is string => p !== null);
  const data = preview.data;
  return (
    <div>
      <div className="toolbar small lake-controls">
        {partitions.length ? (
          <label>
            Slice{" "}
            <select value={partition} onChange={(e) => setPartition(e.target.value)} aria-label="Preview partition">
              <option value="">whole table</option>
              {partitions.map((p) => (
                <option key={p} value={p}>
                  partition {p}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label>
          As of{" "}
          <select value={snapshot} onChange={(e) => setSnapshot(e.target.value)} aria-label="Preview snapshot">
            <option value="">latest snapshot</option>
            {[...detail.snapshots].reverse().map((s) => (
              <option key={s.snapshot_id} value={String(s.snapshot_id)}>
                snapshot {s.snapshot_id}
              </option>
            ))}
          </select>
        </label>
        {data ? (
          <span className="muted" aria-label="Preview summary">
            {data.rows.length} of {data.total} row(s) at snapshot {data.snapshot_id}
          </span>
        ) : null}
      </div>
      {preview.error ? <LoadError error={preview.error} /> : null}
      {!data && !preview.error ? <p className="muted small">Loading…</p> : null}
      {data ? (
        <div className="lake-scroll">
          <table className="table small mono" aria-label="Preview">
            <thead>
              <tr>
                {data.columns.map((c) => (
                  <th key={c.name} title={c.type}>
                    {c.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.rows.map((r, i) => (
                <tr key={i}>
                  {data.columns.map((c) => (
                    <td key={c.name}>{cell(r[c.name])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}

function Snapshots({ detail, onTravel }: { detail: LakeAssetDetail; onTravel(id: number): void }) {
  if (detail.snapshots.length === 0) return <p className="muted small">The lake has no snapshot of this table.</p>;
  return (
    <table className="table small" aria-label="Snapshots">
      <thead>
        <tr>
          <th>Snapshot</th>
          <th>Time</th>
          <th>Changes</th>
          <th>By</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {[...detail.snapshots].reverse().map((s) => (
          <tr key={s.snapshot_id} data-snapshot={s.snapshot_id}>
            <td>{s.snapshot_id}</td>
            <td className="mono">{s.time.replace("T", " ").replace(/\.\d+Z$/, "Z")}</td>
            <td className="small">
              {Object.keys(s.changes)
                .map((k) => k.replace(/_/g, " "))
                .join(", ")}
            </td>
            <td className="small muted">{s.message ?? s.author ?? ""}</td>
            <td>
              <button className="btn btn-sm" onClick={() => onTravel(s.snapshot_id)}>
                Preview as of
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Schema({ detail }: { detail: LakeAssetDetail }) {
  if (detail.schema.length === 0) return <p className="muted small">No schema captured yet.</p>;
  return (
    <ol className="lake-versions" aria-label="Schema versions" reversed>
      {[...detail.schema].reverse().map((v) => (
        <li key={v.version} data-version={v.version}>
          <span className="strong">Version {v.version}</span>{" "}
          <span className="muted small">
            from snapshot {v.snapshot_id} · run <Link href={`/runs/${seg(v.run)}`}>{v.run}</Link>
          </span>
          <div className="small mono">
            {v.columns.map((c) => (
              <span key={c.name} className="code-chip lake-col">
                {c.name} <span className="muted">{c.type}</span>
              </span>
            ))}
          </div>
        </li>
      ))}
    </ol>
  );
}

/** The lineage version in effect at a snapshot: the last one recorded at or before it ("" = the latest). */
function lineageAsOf(detail: LakeAssetDetail, snapshot: string) {
  const history = detail.lineage_history ?? [];
  if (snapshot === "") return history[history.length - 1] ?? detail.lineage;
  return [...history].reverse().find((v) => v.snapshot_id <= Number(snapshot)) ?? null;
}

function Lineage({
  detail,
  snapshot,
  setSnapshot,
}: {
  detail: LakeAssetDetail;
  snapshot: string;
  setSnapshot(v: string): void;
}) {
  if (!detail.lineage) {
    const inferred = detail.static_lineage;
    if (!inferred)
      return <p className="muted small">No column lineage: it is recorded by a managed materialization.</p>;
    // before the first write: what the pipeline graph shows on the write edge (from the script's SQL, not run)
    return (
      <div>
        <p className="muted small" aria-label="Lineage version">
          {inferred.source === "static"
            ? `not written yet: inferred from the SQL of ${inferred.script} without running it (static)`
            : `not written yet: the // column lines of ${inferred.script}`}
        </p>
        <LineageTable l={inferred} />
      </div>
    );
  }
  const l = lineageAsOf(detail, snapshot);
  const versions = detail.lineage_history ?? [];
  return (
    <div>
      <div className="lake-controls">
        <label className="small">
          As of{" "}
          <select value={snapshot} onChange={(e) => setSnapshot(e.target.value)} aria-label="Lineage snapshot">
            <option value="">latest snapshot</option>
            {[...detail.snapshots].reverse().map((s) => (
              <option key={s.snapshot_id} value={String(s.snapshot_id)}>
                snapshot {s.snapshot_id}
              </option>
            ))}
          </select>
        </label>{" "}
        <span className="muted small" aria-label="Lineage version">
          {l
            ? `version ${versions.indexOf(l) + 1} of ${versions.length}, computed at snapshot ${l.snapshot_id} by ${l.script}`
            : "no lineage was recorded at or before this snapshot"}
        </span>
      </div>
      {l ? <LineageTable l={l} /> : null}
    </div>
  );
}

function LineageTable({ l }: { l: Pick<NonNullable<LakeAssetDetail["lineage"]>, "columns" | "warnings"> }) {
  return (
    <div>
      <table className="table small" aria-label="Column lineage">
        <thead>
          <tr>
            <th>Column</th>
            <th>From</th>
            <th>How</th>
          </tr>
        </thead>
        <tbody>
          {l.columns.map((c) => (
            <tr key={c.output} data-column={c.output}>
              <td className="mono">{c.output}</td>
              <td className="mono small">
                {c.sources.length ? (
                  c.sources.map((s) => <div key={`${s.table}.${s.column}`}>{`${s.table}.${s.column}`}</div>)
                ) : c.origin === "unknown" ? (
                  <span className="muted">unknown</span>
                ) : (
                  <span className="muted">constant or computed</span>
                )}
              </td>
              <td className="small">
                {c.origin === "unknown" ? "unknown" : c.passthrough ? "passthrough" : "derived"}
                {c.origin === "annotation" ? <span className="chip">// column</span> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {l.warnings.map((w) => (
        <p key={w} className="small muted">
          {w}
        </p>
      ))}
    </div>
  );
}

/** See the module comment. */
export function LakeTable({ uri }: { uri: string }) {
  const detail = useApi<LakeAssetDetail>(`/api/lake/table?uri=${encodeURIComponent(uri)}`);
  const now = useNow(5000);
  const [tab, setTab] = useState<Tab>("partitions");
  const [partition, setPartition] = useState("");
  const [snapshot, setSnapshot] = useState("");
  const d = detail.data;
  return (
    <section className="card" aria-label="Lake table">
      <div className="card-head">
        <h2 className="mono">{uri}</h2>
        <span className="spacer" />
        <div className="segmented" role="tablist" aria-label="Lake table views">
          {TABS.map(([id, label]) => (
            <button
              key={id}
              role="tab"
              aria-selected={tab === id}
              className={tab === id ? "on" : ""}
              onClick={() => setTab(id)}
            >
              {label}
              {id === "lineage" && (d?.lineage ?? d?.static_lineage) ? (
                <span className="alias">{(d.lineage ?? d.static_lineage)!.columns.length}</span>
              ) : null}
            </button>
          ))}
        </div>
      </div>
      {detail.error ? <LoadError error={detail.error} /> : null}
      {!d && !detail.error ? <p className="muted small">Loading…</p> : null}
      {d && tab === "partitions" ? (
        <Partitions
          detail={d}
          now={now}
          onPreview={(p) => {
            setPartition(p);
            setTab("preview");
          }}
        />
      ) : null}
      {d && tab === "preview" ? (
        <Preview
          detail={d}
          partition={partition}
          snapshot={snapshot}
          setPartition={setPartition}
          setSnapshot={setSnapshot}
        />
      ) : null}
      {d && tab === "snapshots" ? (
        <Snapshots
          detail={d}
          onTravel={(id) => {
            setSnapshot(String(id));
            setTab("preview");
          }}
        />
      ) : null}
      {d && tab === "schema" ? <Schema detail={d} /> : null}
      {d && tab === "lineage" ? <Lineage detail={d} snapshot={snapshot} setSnapshot={setSnapshot} /> : null}
    </section>
  );
}
