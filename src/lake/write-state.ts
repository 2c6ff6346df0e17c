/**
 * What a managed write plans on, per table at one snapshot: the table, its columns, its
 * partitioning and its visible files with their partition values. Read from the catalog
 * (I/O: {@link readTableWriteState}) and kept by the writer between its writes in a
 * {@link WriteStateCache}, which holds exactly one snapshot: a write whose base snapshot is
 * another one (any other writer committed, in this process or another) reads again. A write
 * that committed straight on the snapshot it planned on, changing only files, moves the cache
 * to its new snapshot by {@link afterFileCommit} (pure) instead of the next write reading it
 * back: the files it ended leave, the files it added join. The catalog rows are unaffected:
 * this is only what the next write plans on.
 */
import type { CatalogDb } from "./catalog-db.js";
import { readColumns, readFilePartitionValues, readPartitioning } from "./catalog-read.js";
import type { WrittenDataFile } from "./file-writer.js";
import { resolveRelative } from "./paths.js";
import type { LakeReader, TableAt } from "./reader.js";
import type { LakeColumn, LakeSchema } from "./types.js";
import { columnsAt } from "./visibility.js";

/** A visible data file as a write uses it. */
export interface PlannedFile {
  readonly dataFileId: number;
  /** Absolute (or URL) path of the data file, as the reader resolves it. */
  readonly dataPath: string;
  /** Its delete file at the snapshot, if any. */
  readonly deleteFileId: number | null;
  readonly deletePath?: string;
  /** Partition values by key index (empty for files of an unpartitioned table). */
  readonly partitionValues: ReadonlyArray<string | null>;
}

/** A table's identity partitioning at a snapshot. */
export interface Partitioning {
  readonly partitionId: number;
  readonly columns: ReadonlyArray<{ readonly columnId: number; readonly transform: string }>;
}

/** One table as a write plans on it, at {@link snapshotId}. */
export interface TableWriteState {
  readonly snapshotId: number;
  readonly table: TableAt;
  /** The table's folder (or URL). */
  readonly tableDir: string;
  /** Top-level columns at the snapshot, in order. */
  readonly columns: readonly LakeColumn[];
  readonly partitioning: Partitioning | null;
  readonly files: readonly PlannedFile[];
}

/** Read a table's write state at snapshot `s` from the catalog. */
export async function readTableWriteState(
  reader: LakeReader,
  db: CatalogDb,
  table: TableAt,
  s: number,
): Promise<TableWriteState> {
  const tableId = table.table.tableId;
  const columns = columnsAt(await readColumns(db, tableId), s);
  const partitioning = await readPartitioning(db, tableId, s);
  const visible = await reader.filesOf(table, s);
  const values = partitioning ? await readFilePartitionValues(db, tableId, s) : new Map<number, string[]>();
  const files = visible.map((f) => ({
    dataFileId: f.data.dataFileId,
    dataPath: f.dataPath,
    deleteFileId: f.delete?.deleteFileId ?? null,
    ...(f.deletePath && { deletePath: f.deletePath }),
    partitionValues: values.get(f.data.dataFileId) ?? [],
  }));
  return { snapshotId: s, table, tableDir: reader.tableDir(table), columns, partitioning, files };
}

/**
 * The state after a commit on `state`'s own snapshot that changed nothing but files (no
 * column, no delete file): `ended` data files leave, `added` (with the ids the commit gave
 * them, in order) join. Pure.
 */
export function afterFileCommit(
  state: TableWriteState,
  snapshotId: number,
  ended: readonly number[],
  added: ReadonlyArray<{ readonly dataFileId: number; readonly file: WrittenDataFile }>,
): TableWriteState {
  const gone = new Set(ended);
  return {
    ...state,
    snapshotId,
    files: [
      ...state.files.filter((f) => !gone.has(f.dataFileId)),
      ...added.map(({ dataFileId, file }) => ({
        dataFileId,
        dataPath: resolveRelative(state.tableDir, file.relPath, true),
        deleteFileId: null,
        partitionValues: file.partitionValues ?? [],
      })),
    ],
  };
}

/** The writer's states at one snapshot (see the module comment). */
export class WriteStateCache {
  private snapshotId: number | undefined;
  private schemas: LakeSchema[] | undefined;
  private readonly tables = new Map<string, TableWriteState>();

  /** Keep only what holds at snapshot `s` (nothing, when it is another snapshot). */
  private at(s: number): void {
    if (this.snapshotId === s) return;
    this.clear();
    this.snapshotId = s;
  }

  /** The visible schemas at `s`, read by `read` unless kept. */
  async schemasAt(s: number, read: () => Promise<LakeSchema[]>): Promise<LakeSchema[]> {
    this.at(s);
    const schemas = this.schemas ?? (await read());
    if (this.snapshotId === s) this.schemas = schemas;
    return schemas;
  }

  /** The kept state of table `name` at `s`, if any. */
  table(name: string, s: number): TableWriteState | undefined {
    this.at(s);
    return this.tables.get(name);
  }

  /** Keep a state read at its snapshot (ignored when the cache moved on meanwhile). */
  keep(name: string, state: TableWriteState): void {
    if (this.snapshotId === state.snapshotId) this.tables.set(name, state);
  }

  /**
   * A write committed snapshot `next.snapshotId` straight on `base`, changing only table
   * `name`'s files: move to it, keeping the other tables (unchanged by it). When the cache is
   * no longer at `base` (another write of this process moved it), forget everything.
   */
  advance(base: number, name: string, next: TableWriteState): void {
    if (this.snapshotId !== base) return this.clear();
    this.snapshotId = next.snapshotId;
    this.tables.set(name, next);
  }

  /** Forget everything (a commit that changed more than files, or one not on its base). */
  clear(): void {
    this.snapshotId = undefined;
    this.schemas = undefined;
    this.tables.clear();
  }
}
