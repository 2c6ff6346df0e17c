/**
 * The materialization state of a lake table asset: one key-value record per written slice
 * (`pipeline:materialized:<uri> <partition>`, the partition empty for a whole-table write)
 * holding the latest write's `{asset, rows, snapshot_id, partition?, tests?, run, at}`. Written
 * by every managed write, from a `// materialize` SQL script or from code (`ducklake()`), and
 * read by the partition grid of the API, UI and CLI; removed when `sluice lake rollback`
 * undoes the write (`rollback-records.ts`). Every record is also kept in the table's log
 * (`pipeline:materialized-log:<uri> <snapshot> <partition>`), with the table's rollbacks
 * (`pipeline:materialized-rollback:<uri> <snapshot>`), so a later rollback can bring back the
 * records in effect at any snapshot (`slice-timeline.ts`).
 */
import type { Store } from "../../store/types.js";
import type { SliceEvent } from "./slice-timeline.js";

/** Key-value prefix of a table's written slices (`<prefix><uri> <partition>`). */
export const MATERIALIZED_PREFIX = "pipeline:materialized:";

/** Key-value prefix of every slice record ever written (`<prefix><uri> <snapshot> <partition>`). */
const LOG_PREFIX = "pipeline:materialized-log:";
/** Key-value prefix of a table's rollbacks (`<prefix><uri> <snapshot>` → `{snapshot, to}`). */
const ROLLBACK_PREFIX = "pipeline:materialized-rollback:";

/** Snapshot ids padded so keys list in snapshot order. */
const padded = (snapshot: number) => String(snapshot).padStart(12, "0");

/** A slice record as stored (the fields the history needs). */
interface StoredSlice {
  readonly snapshot_id: number;
  readonly partition?: string;
  readonly at?: number;
}

/** What one managed write reports about the slice it wrote. */
export interface MaterializedWrite {
  readonly asset: string;
  readonly rows: number;
  readonly snapshot_id: number;
  readonly partition?: string;
  readonly tests?: readonly unknown[];
}

/**
 * Record `result` as the slice's latest write by run `run` of `script` (replaces the slice's
 * previous record; the script lets a rollback restoring the record rebuild its status entry).
 * The log entry and the current record are one atomic store write (`kvPutAll`): a crash or a
 * refused write leaves neither, never one without the other.
 */
export async function recordMaterialized(
  store: Store,
  result: MaterializedWrite,
  run: string,
  script?: string,
  at = Date.now(),
): Promise<void> {
  const record = JSON.stringify({ ...result, run, ...(script !== undefined && { script }), at });
  await store.kvPutAll([
    { key: logKey(result.asset, record), value: record },
    { key: `${MATERIALIZED_PREFIX}${result.asset} ${result.partition ?? ""}`, value: record },
  ]);
}

/** The log key of slice record `record` of table `uri`. */
function logKey(uri: string, record: string): string {
  const v = JSON.parse(record) as StoredSlice;
  return `${LOG_PREFIX}${uri} ${padded(v.snapshot_id)} ${v.partition ?? ""}`;
}

/** Keeps slice record `record` of table `uri` in the table's log. */
export async function logSlice(store: Store, uri: string, record: string): Promise<void> {
  await store.kvPut(logKey(uri, record), record);
}

/** Records that table `uri` was rolled back to snapshot `to` as snapshot `snapshot`. */
export async function logRollback(store: Store, uri: string, snapshot: number, to: number): Promise<void> {
  await store.kvPut(`${ROLLBACK_PREFIX}${uri} ${padded(snapshot)}`, JSON.stringify({ snapshot, to }));
}

/** Every write and rollback of table `uri`'s slice records. */
export async function sliceEvents(store: Store, uri: string): Promise<SliceEvent[]> {
  const writes = (await store.kvList(`${LOG_PREFIX}${uri} `)).map((row): SliceEvent => {
    const v = JSON.parse(row.value) as StoredSlice;
    return { kind: "write", snapshot: v.snapshot_id, partition: v.partition ?? "", at: v.at ?? 0, record: row.value };
  });
  const rollbacks = (await store.kvList(`${ROLLBACK_PREFIX}${uri} `)).map((row): SliceEvent => {
    const v = JSON.parse(row.value) as { snapshot: number; to: number };
    return { kind: "rollback", snapshot: v.snapshot, to: v.to };
  });
  return [...writes, ...rollbacks];
}
