/** The text form of `sluice lake lineage`: one line per output column with its sources. */
import type { LineageRecord } from "../../pipeline/runtime/lineage-record.js";
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
  const head = `${record.asset} (${record.script}, run ${record.run}, snapshot ${record.snapshot_id}, ${timeLabel(record.at)})`;
  const warnings = record.warnings.map((w) => `warning: ${w}`);
  return `${[head, table(["column", "sources", "how", "origin"], rows), ...warnings].join("\n")}\n`;
}
