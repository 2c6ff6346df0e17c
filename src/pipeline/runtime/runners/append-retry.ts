/**
 * A retried append does not append twice. Replace and merge are idempotent by themselves (a
 * second write of the same slice leaves the same rows); an append is not, so when an attempt
 * of a run committed its append and died (or failed) before the run finished, the next attempt
 * must not add the rows again. Every managed SQL write is authored `sluice run <run id>` in the
 * lake's `ducklake_snapshot_changes` and a SQL script materializes one table, so a snapshot of
 * the lake with this run's author is this run's committed write: the retry returns it instead.
 * A `ducklake()` write from code is authored `sluice run <run id> write <n> <table>[ <partition>]`,
 * `n` its place among the attempt's lake writes, so the retry's n-th append finds the n-th
 * commit of the earlier attempt (code that writes in a different order on retry is not covered).
 * The authors are named in `../write-author.ts`.
 */
import type { LakeWriter } from "../../../lake/writer.js";
import { num } from "../../../lake/catalog-db.js";

/** A write this run already committed: its snapshot and the rows it added. */
export interface CommittedWrite {
  readonly snapshotId: number;
  readonly rows: number;
}

/** The last snapshot of `lake` committed under `author` (an earlier attempt's write), if any. */
export async function committedBy(lake: LakeWriter, author: string): Promise<CommittedWrite | undefined> {
  const mine = (await lake.reader.snapshots()).filter((s) => s.author === author);
  const last = mine[mine.length - 1];
  if (!last) return undefined;
  const [row] = await lake.db.all(
    "SELECT coalesce(sum(record_count), 0) AS n FROM ducklake_data_file WHERE begin_snapshot = ?",
    [last.snapshotId],
  );
  return { snapshotId: last.snapshotId, rows: num(row?.n ?? 0) };
}
