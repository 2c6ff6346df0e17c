/**
 * Sluice's records of a lake table follow a rollback of the table (`sluice lake rollback`).
 * The rule, as the lake's own: a rollback of table T to snapshot S, made as snapshot R, makes
 * T from R on what it was at S, and history before R is kept. So:
 *
 * - every write recorded at a snapshot W with S < W < R is undone: its materialization record
 *   (`pipeline:materialized:<uri> <partition>`, the partition grid) and the `pipeline:written:`
 *   index entry of the run that made it (`sluice pipeline status`) are removed, and so is that
 *   run's step's done mark for its partition, so a plan or backfill runs the step again; writes
 *   at or before S are what the table holds, and writes after R (a run that committed after
 *   the rollback) are kept;
 * - the schema version and the column lineage in effect at S become the current ones from R
 *   on (a new version restoring them, added only when they differ from the latest), so "as of
 *   R" reads what "as of S" reads and "as of" a snapshot before R is unchanged.
 *
 * Records are removed with compare-and-set, so one a concurrent write just replaced is kept.
 */
import type { Store } from "../../store/types.js";
import { clearDone } from "./done-marks.js";
import { PipelineRuntimeError } from "./errors.js";
import { lineageAt, lineageHistory, recordLineage } from "./lineage-record.js";
import { MATERIALIZED_PREFIX } from "./materialized-record.js";
import { WRITTEN_PREFIX } from "./run-context.js";
import { captureSchema, schemaAt, schemaHistory } from "./schema-history.js";

/** A rollback of a lake table: snapshot `snapshot` made its content equal to snapshot `to`'s. */
export interface TableRollback {
  /** `ducklake://<lake>/<table>`. */
  readonly uri: string;
  readonly to: number;
  readonly snapshot: number;
}

/** What a rollback changed in Sluice's records. */
export interface RollbackRecords {
  /** Partitions whose recorded write the rollback undid ("" for a whole-table write), sorted. */
  readonly partitions: readonly string[];
  /** The schema version the rollback brought back, when the current one differed. */
  readonly schemaRestored: number | null;
  /** The snapshot of the lineage version the rollback brought back, when the current one differed. */
  readonly lineageRestored: number | null;
}

/** The lake rolled back but Sluice's records could not follow it (e.g. the store failed). */
export class RollbackRecordsError extends PipelineRuntimeError {
  constructor(rollback: TableRollback, table: string, cause: unknown) {
    super(
      "LAKE_ROLLBACK_RECORDS_FAILED",
      `${table} was rolled back to snapshot ${rollback.to} (new snapshot ${rollback.snapshot}), but Sluice's records of it could not follow (${(cause as Error)?.message ?? String(cause)}): the partition grid, pipeline status and backfills still show the writes it undid; once the store works, run the same rollback again (its new snapshot is the same content, and the records follow)`,
      { cause },
    );
  }
}

/** Whether a write recorded at snapshot `written` is undone by `rollback` (pure). */
export function undoneBy(written: number, rollback: Pick<TableRollback, "to" | "snapshot">): boolean {
  return written > rollback.to && written < rollback.snapshot;
}

/** The slice records of a table a rollback undid, removed; the runs that wrote them. */
async function dropSlices(store: Store, rollback: TableRollback): Promise<{ partitions: string[]; runs: Set<string> }> {
  const partitions: string[] = [];
  const runs = new Set<string>();
  for (const row of await store.kvList(`${MATERIALIZED_PREFIX}${rollback.uri} `)) {
    const v = JSON.parse(row.value) as { snapshot_id: number; run: string; partition?: string };
    if (!undoneBy(v.snapshot_id, rollback) || !(await store.kvSwap(row.key, row.value, null))) continue;
    partitions.push(v.partition ?? "");
    runs.add(v.run);
  }
  return { partitions: partitions.sort(), runs };
}

/** The status index entries of the runs `runs` for the table, removed, with their steps' done marks. */
async function dropWritten(store: Store, uri: string, runs: ReadonlySet<string>): Promise<void> {
  const prefix = `${WRITTEN_PREFIX}${uri} `;
  for (const row of await store.kvList(prefix)) {
    const v = JSON.parse(row.value) as { run: string; script: string };
    if (!runs.has(v.run) || !(await store.kvSwap(row.key, row.value, null))) continue;
    const partition = row.key.slice(prefix.length);
    if (partition) await clearDone(store, v.script, partition);
  }
}

/** Brings Sluice's records of the rolled-back table in line with it (see the module's rule). */
export async function followRollback(
  store: Store,
  rollback: TableRollback,
  now = Date.now(),
): Promise<RollbackRecords> {
  const { partitions, runs } = await dropSlices(store, rollback);
  await dropWritten(store, rollback.uri, runs);
  const schema = await schemaHistory(store, rollback.uri);
  const schemaThen = schemaAt(schema, rollback.to);
  let schemaRestored: number | null = null;
  if (schemaThen) {
    const version = await captureSchema(store, rollback.uri, schemaThen.columns, {
      snapshot_id: rollback.snapshot,
      run: schemaThen.run,
      at: now,
      restores: schemaThen.version,
    });
    if (version !== schema[schema.length - 1]?.version) schemaRestored = schemaThen.version;
  }
  const lineage = await lineageHistory(store, rollback.uri);
  const lineageThen = lineageAt(lineage, rollback.to);
  const lineageRestored =
    lineageThen &&
    (await recordLineage(store, {
      ...lineageThen,
      snapshot_id: rollback.snapshot,
      at: now,
      restores: lineageThen.snapshot_id,
    }))
      ? lineageThen.snapshot_id
      : null;
  return { partitions, schemaRestored, lineageRestored };
}
