/**
 * The materialization state of a lake table asset: one key-value record per written slice
 * (`pipeline:materialized:<uri> <partition>`, the partition empty for a whole-table write)
 * holding the latest write's `{asset, rows, snapshot_id, partition?, tests?, run, at}`. Written
 * by every managed write, from a `// materialize` SQL script or from code (`ducklake()`), and
 * read by the partition grid of the API, UI and CLI; removed when `sluice lake rollback`
 * undoes the write (`rollback-records.ts`).
 */
import type { Store } from "../../store/types.js";

/** Key-value prefix of a table's written slices (`<prefix><uri> <partition>`). */
export const MATERIALIZED_PREFIX = "pipeline:materialized:";

/** What one managed write reports about the slice it wrote. */
export interface MaterializedWrite {
  readonly asset: string;
  readonly rows: number;
  readonly snapshot_id: number;
  readonly partition?: string;
  readonly tests?: readonly unknown[];
}

/** Record `result` as the slice's latest write by run `run` (replaces the slice's previous record). */
export async function recordMaterialized(
  store: Store,
  result: MaterializedWrite,
  run: string,
  at = Date.now(),
): Promise<void> {
  await store.kvPut(
    `${MATERIALIZED_PREFIX}${result.asset} ${result.partition ?? ""}`,
    JSON.stringify({ ...result, run, at }),
  );
}
