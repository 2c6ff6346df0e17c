/**
 * The load-time check that a `// partitioned` managed `// materialize` does not produce Sluice's
 * `_partition` column itself (Sluice adds it to every slice), on the outputs DuckDB's own parse of
 * the trailing SELECT gives (`static-lineage.ts`, nothing of the script runs): `… AS _partition`,
 * `t._partition`, and a `*` over a lake table whose columns are known before the run — its last
 * write's schema in the store, else the outputs of the loaded script that writes it, which for a
 * `// partitioned` writer include `_partition`. A `*` over a table of unknown schema is left to
 * the run, which refuses the write with the same code (`runners/sql-lake.ts`).
 */
import type { Diagnostic } from "../diagnostics.js";
import { slashCommentsToSql, splitSqlStatements } from "../materialize-body.js";
import { PARTITION_COLUMN } from "../partition-column.js";
import type { Store } from "../../store/types.js";
import type { MemberScript, PipelineFolder } from "./catalog.js";
import { schemaHistory } from "./schema-history.js";

/** A lake table's columns as its last write left them in the store, or undefined. */
export type RecordedColumns = (uri: string) => Promise<readonly string[] | undefined>;

/** {@link RecordedColumns} read from `store`'s schema versions. */
export function storedColumns(store: Store): RecordedColumns {
  return async (uri) => (await schemaHistory(store, uri)).at(-1)?.columns.map((c) => c.name);
}

const checked = (m: MemberScript): boolean =>
  m.language === "sql" &&
  m.analyzed.annotations.materialize?.mode === "managed" &&
  m.analyzed.annotations.partitioned !== undefined;

/** The `PARTITION_COLUMN_RESERVED` errors of the members of `folders`, one per script at most. */
export async function reservedColumnErrors(
  folders: readonly PipelineFolder[],
  recordedColumns: RecordedColumns = async () => undefined,
): Promise<Diagnostic[]> {
  const members = folders.flatMap((f) => f.members).filter(checked);
  if (members.length === 0) return [];
  // loaded on first use: DuckDB's bindings are heavy, and only these scripts need them
  const { inferLoadedLineage } = await import("./static-lineage.js");
  const lineage = await inferLoadedLineage(folders, recordedColumns);
  const out: Diagnostic[] = [];
  for (const m of members) {
    const outputs = lineage.get(m.path)?.result?.columns.map((c) => c.output) ?? [];
    const name = outputs.find((n) => n.toLowerCase() === PARTITION_COLUMN);
    if (name === undefined) continue;
    const line = splitSqlStatements(slashCommentsToSql(m.source)).at(-1)?.line ?? 0;
    out.push({
      severity: "error",
      line,
      code: "PARTITION_COLUMN_RESERVED",
      message: `the SELECT produces a column named ${name}, which Sluice reserves for the partition of a -- partitioned materialization (it adds ${PARTITION_COLUMN} to every slice itself); rename the column (AS another_name) or drop it (a * over a partitioned table brings that table's ${PARTITION_COLUMN} along: SELECT * EXCLUDE (${PARTITION_COLUMN}) …)`,
      script: m.path,
    });
  }
  return out;
}
