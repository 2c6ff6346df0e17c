/**
 * Which catalog rows a snapshot sees, and which snapshot a reference names (DuckLake 1.0
 * "Queries"). Pure.
 */
import { SnapshotNotFoundError } from "./errors.js";
import type { LakeColumn, LakeDataFile, LakeDeleteFile, LakeSnapshot, SnapshotRange, SnapshotRef } from "./types.js";

/** A row exists at `snapshot` when `begin_snapshot <= snapshot < end_snapshot` (no end: still current). */
export function visibleAt(row: SnapshotRange, snapshot: number): boolean {
  return row.beginSnapshot <= snapshot && (row.endSnapshot === null || snapshot < row.endSnapshot);
}

/** Microseconds since the epoch of a catalog timestamp (`2026-12-01 04:47:03.5+00`, ISO, or a Date). */
export function timestampMicros(value: string | Date): number {
  if (value instanceof Date) return value.getTime() * 1000;
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(
    value.trim(),
  );
  if (!m) {
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) throw new SnapshotNotFoundError(`at time ${JSON.stringify(value)} (not a timestamp)`);
    return ms * 1000;
  }
  let zone = m[4] ?? "Z";
  if (/^[+-]\d{2}$/.test(zone)) zone += ":00";
  else if (/^[+-]\d{4}$/.test(zone)) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const seconds = Date.parse(`${m[1]}T${m[2]}${zone}`);
  const frac = (m[3] ?? "").padEnd(6, "0");
  return seconds * 1000 + Number(frac || "0");
}

/** ISO 8601 UTC with six fractional digits of a microsecond timestamp. */
export function isoMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const base = new Date(ms).toISOString().slice(0, 19);
  const frac = String(micros - Math.floor(micros / 1_000_000) * 1_000_000).padStart(6, "0");
  return `${base}.${frac}Z`;
}

/** The snapshot a reference names. @throws SnapshotNotFoundError */
export function pickSnapshot(snapshots: readonly LakeSnapshot[], ref: SnapshotRef): LakeSnapshot {
  if (snapshots.length === 0) throw new SnapshotNotFoundError("at all (the catalog is empty)");
  if (ref.kind === "latest") return snapshots.reduce((a, b) => (b.snapshotId > a.snapshotId ? b : a));
  if (ref.kind === "version") {
    const found = snapshots.find((s) => s.snapshotId === ref.snapshotId);
    if (!found) throw new SnapshotNotFoundError(`with version ${ref.snapshotId}`);
    return found;
  }
  const at = timestampMicros(ref.at);
  let best: LakeSnapshot | undefined;
  for (const s of snapshots) if (s.micros <= at && (!best || s.snapshotId > best.snapshotId)) best = s;
  if (!best)
    throw new SnapshotNotFoundError(`at or before ${typeof ref.at === "string" ? ref.at : ref.at.toISOString()}`);
  return best;
}

/** The top-level columns of a table at `snapshot`, in column order. */
export function columnsAt(columns: readonly LakeColumn[], snapshot: number): LakeColumn[] {
  return columns.filter((c) => c.parentColumn === null && visibleAt(c, snapshot)).sort((a, b) => a.order - b.order);
}

/** Data files visible at `snapshot`, each with its delete file at that snapshot, in file order. */
export function filesAt(
  data: readonly LakeDataFile[],
  deletes: readonly LakeDeleteFile[],
  snapshot: number,
): Array<{ data: LakeDataFile; delete?: LakeDeleteFile }> {
  const del = new Map<number, LakeDeleteFile>();
  for (const d of deletes) if (visibleAt(d, snapshot)) del.set(d.dataFileId, d);
  return data
    .filter((f) => visibleAt(f, snapshot))
    .sort((a, b) => (a.fileOrder ?? a.dataFileId) - (b.fileOrder ?? b.dataFileId) || a.dataFileId - b.dataFileId)
    .map((f) => {
      const d = del.get(f.dataFileId);
      return d ? { data: f, delete: d } : { data: f };
    });
}
