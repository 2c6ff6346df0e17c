/**
 * Sluice's records of a lake table follow a rollback of the table (`sluice lake rollback`).
 * The rule, as the lake's own: a rollback of table T to snapshot S, made as snapshot R, makes
 * T from R on what it was at S, and history before R is kept. So:
 *
 * - the slice records (`pipeline:materialized:<uri> <partition>`, the partition grid) become
 *   the ones in effect at S (`slice-timeline.ts`, from the table's log of writes and
 *   rollbacks), and writes after R (a run that committed after the rollback) are kept. A
 *   record not in effect at S is undone: it is removed, and so are the `pipeline:written:`
 *   index entry of the run that made it (`sluice pipeline status`) and that run's step's done
 *   mark for its partition, so a plan or backfill runs the step again. A record in effect at
 *   S that is missing or replaced (an earlier rollback undid it, or a later write replaced
 *   it) is restored, with the index entry and done mark its undoing removed, so rolling back
 *   to before an earlier rollback brings its writes back;
 * - the schema version and the column lineage in effect at S become the current ones from R
 *   on (a new version restoring them, added only when they differ from the latest), so "as of
 *   R" reads what "as of S" reads and "as of" a snapshot before R is unchanged.
 *
 * Records are removed and restored with compare-and-set, so one a concurrent write just
 * replaced is kept.
 */
import type { Store } from "../../store/types.js";
import { doneKey } from "./done-marks.js";
import { PipelineRuntimeError } from "./errors.js";
import { lineageAt, lineageHistory, recordLineage } from "./lineage-record.js";
import { logRollback, logSlice, MATERIALIZED_PREFIX, sliceEvents } from "./materialized-record.js";
import { parseWritten, WRITTEN_PREFIX, writtenKey } from "./written-index.js";
import { captureSchema, schemaAt, schemaHistory } from "./schema-history.js";
import { slicesAt } from "./slice-timeline.js";

/** A rollback of a lake table: snapshot `snapshot` made its content equal to snapshot `to`'s. */
export interface TableRollback {
  /** `ducklake://<lake>/<table>`. */
  readonly uri: string;
  readonly to: number;
  readonly snapshot: number;
}

/** What a rollback changed in Sluice's records. */
export interface RollbackRecords {
  /** Partitions whose recorded write the rollback undid, now without one ("" for a whole-table write), sorted. */
  readonly partitions: readonly string[];
  /**
   * Partitions whose write in effect at the snapshot rolled back to is the current record
   * again (one an earlier rollback or a later write had replaced), sorted.
   */
  readonly restored: readonly string[];
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

/** Key-value prefix of what undoing a run's write removed (`<prefix><uri> <run>` → `[{key, value}]`). */
const UNDONE_PREFIX = "pipeline:materialized-undone:";

/**
 * The table's slice records made what they were at the rollback's target: a record not in
 * effect there is removed (undone), one in effect there but missing or replaced is put back
 * (restored). Compare-and-set, so a record a concurrent write just replaced is kept.
 */
async function followSlices(
  store: Store,
  rollback: TableRollback,
): Promise<{ partitions: string[]; restored: string[]; undone: Set<string>; brought: Map<string, string[]> }> {
  const prefix = `${MATERIALIZED_PREFIX}${rollback.uri} `;
  const current = new Map((await store.kvList(prefix)).map((row) => [row.key.slice(prefix.length), row.value]));
  // records written before the log existed enter it now, so they can be brought back later
  for (const value of current.values()) await logSlice(store, rollback.uri, value);
  await logRollback(store, rollback.uri, rollback.snapshot, rollback.to);
  const target = slicesAt(await sliceEvents(store, rollback.uri), Number.MAX_SAFE_INTEGER);
  const partitions: string[] = [];
  const restored: string[] = [];
  const undone = new Set<string>();
  /** Run → the slice records of it this rollback brings back. */
  const brought = new Map<string, string[]>();
  const bring = (record: string) => {
    const run = runOf(record);
    brought.set(run, [...(brought.get(run) ?? []), record]);
  };
  const runOf = (value: string) => (JSON.parse(value) as { run: string }).run;
  for (const [partition, value] of current) {
    const want = target.get(partition)?.record ?? null;
    if (want === value || !(await store.kvSwap(`${prefix}${partition}`, value, want))) continue;
    undone.add(runOf(value));
    if (want === null) partitions.push(partition);
    else {
      restored.push(partition);
      bring(want);
    }
  }
  for (const [partition, write] of target) {
    if (current.has(partition) || !(await store.kvSwap(`${prefix}${partition}`, null, write.record))) continue;
    restored.push(partition);
    bring(write.record);
  }
  for (const run of brought.keys()) undone.delete(run);
  return { partitions: partitions.sort(), restored: restored.sort(), undone, brought };
}

/**
 * The status index entries of the runs `runs` for the table, removed, with their steps' done
 * marks; what was removed is kept, so a later rollback restoring the runs' writes puts it back.
 */
async function dropWritten(store: Store, uri: string, runs: ReadonlySet<string>): Promise<void> {
  const prefix = `${WRITTEN_PREFIX}${uri} `;
  const removed = new Map<string, Array<{ key: string; value: string }>>();
  for (const row of await store.kvList(prefix)) {
    const v = parseWritten(row.key, row.value);
    if (!runs.has(v.run)) continue;
    const entries = removed.get(v.run) ?? [];
    removed.set(v.run, entries);
    entries.push({ key: row.key, value: row.value });
    // the run's done mark is under its own partition (a whole-table write may come from a partitioned chain)
    const partition = v.runPartition ?? v.partition;
    const done = partition ? doneKey(v.script, partition) : null;
    const mark = done ? await store.kvGet(done) : null;
    if (done && mark !== null) entries.push({ key: done, value: mark });
  }
  for (const [run, entries] of removed) {
    await store.kvPut(`${UNDONE_PREFIX}${uri} ${run}`, JSON.stringify(entries));
    for (const { key, value } of entries) await store.kvSwap(key, value, null);
  }
}

/**
 * The status index entries and done marks of the runs brought back (run → its slice records),
 * put back where nothing replaced them. A run whose entries no rollback removed (a later write of
 * the slice replaced them) gets its index entry again from its slice record, when the record
 * names its script (records written before it did are left); its done mark is not rebuilt, so a backfill runs it again.
 */
async function restoreWritten(store: Store, uri: string, runs: ReadonlyMap<string, readonly string[]>): Promise<void> {
  for (const [run, records] of runs) {
    const kept = await store.kvGet(`${UNDONE_PREFIX}${uri} ${run}`);
    if (kept !== null) {
      for (const { key, value } of JSON.parse(kept) as Array<{ key: string; value: string }>)
        await store.kvSwap(key, null, value);
      continue;
    }
    for (const record of records) {
      const r = JSON.parse(record) as { partition?: string; script?: string; at?: number };
      if (r.script === undefined) continue;
      const entry = JSON.stringify({ run, script: r.script, at: r.at ?? 0 });
      await store.kvSwap(writtenKey(uri, r.partition), null, entry);
    }
  }
}

/** Brings Sluice's records of the rolled-back table in line with it (see the module's rule). */
export async function followRollback(
  store: Store,
  rollback: TableRollback,
  now = Date.now(),
): Promise<RollbackRecords> {
  const { partitions, restored, undone, brought } = await followSlices(store, rollback);
  await dropWritten(store, rollback.uri, undone);
  await restoreWritten(store, rollback.uri, brought);
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
  return { partitions, restored, schemaRestored, lineageRestored };
}
