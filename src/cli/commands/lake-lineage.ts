/**
 * The text form of `sluice lake lineage`: one line per output column with its sources; and
 * what a `sluice lake rollback` changed in Sluice's records of the table.
 */
import type { LineageRecord } from "../../pipeline/runtime/lineage-record.js";
import type { RollbackRecords } from "../../pipeline/runtime/rollback-records.js";
import { table, timeLabel } from "../format.js";

/** A lineage record as a table (output, sources, how, origin) with its provenance and warnings. */
export function renderLineage(record: LineageRecord): string {
  const rows = record.columns.map((c) => [
    c.output,
    c.origin === "unknown"
      ? "(unknown: see the warnings)"
      : c.sources.map((s) => `${s.table}.${s.column}`).join(", ") ||
        "(none: no input column, e.g. a constant, count(*) or the partition)",
    c.origin === "unknown" ? "unknown" : c.passthrough ? "passthrough" : "derived",
    c.origin,
  ]);
  const restored = record.restores === undefined ? "" : `, restored by a rollback from snapshot ${record.restores}`;
  const head = `${record.asset} (${record.script}, run ${record.run}, snapshot ${record.snapshot_id}${restored}, ${timeLabel(record.at)})`;
  const warnings = record.warnings.map((w) => `warning: ${w}`);
  return `${[head, table(["column", "sources", "how", "origin"], rows), ...warnings].join("\n")}\n`;
}

/** What a rollback changed in Sluice's records, one line each (empty when nothing). */
export function renderRollbackRecords(r: RollbackRecords): string {
  const lines: string[] = [];
  const slices = (p: readonly string[]) =>
    p.length === 1 && p[0] === "" ? "the table's write" : `${p.length} partition(s): ${p.join(", ")}`;
  if (r.partitions.length)
    lines.push(
      `undone in Sluice's records: ${slices(r.partitions)} (no longer materialized; a plan or backfill runs them again)`,
    );
  if (r.restored.length)
    lines.push(`restored in Sluice's records: ${slices(r.restored)} (materialized as at the snapshot rolled back to)`);
  if (r.schemaRestored !== null) lines.push(`schema: version ${r.schemaRestored}'s columns are current again`);
  if (r.lineageRestored !== null)
    lines.push(`column lineage: the version of snapshot ${r.lineageRestored} is current again`);
  return lines.map((l) => `${l}\n`).join("");
}
