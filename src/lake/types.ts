/**
 * The DuckLake catalog as domain values (DuckLake 1.0). Glossary:
 *
 * - snapshot: one committed version of the whole lake, `snapshot_id` counting up from 0;
 * - visible at S: a catalog row with `begin_snapshot <= S < end_snapshot` (or no end);
 * - data file: a Parquet file of rows; delete file: Parquet positions (`pos`) of deleted
 *   rows of one data file, optionally per snapshot (`_ducklake_internal_snapshot_id`,
 *   a "partial" delete file with `partial_max`);
 * - column id: the Parquet `field_id` of the column in every data file.
 */

/** `begin_snapshot`/`end_snapshot` of a catalog row. */
export interface SnapshotRange {
  readonly beginSnapshot: number;
  readonly endSnapshot: number | null;
}

/** One row of `ducklake_snapshot` (with its changes). */
export interface LakeSnapshot {
  readonly snapshotId: number;
  /** ISO 8601 UTC with microseconds, e.g. `2026-12-01T04:47:04.153445Z`. */
  readonly time: string;
  /** Microseconds since the epoch (for ordering and time travel). */
  readonly micros: number;
  readonly schemaVersion: number;
  readonly nextCatalogId: number;
  readonly nextFileId: number;
  /** `ducklake_snapshot_changes.changes_made`, as stored. */
  readonly changes: string | null;
  readonly author: string | null;
  readonly commitMessage: string | null;
}

/** One row of `ducklake_schema`. */
export interface LakeSchema extends SnapshotRange {
  readonly schemaId: number;
  readonly name: string;
  readonly path: string | null;
  readonly pathIsRelative: boolean;
}

/** One row of `ducklake_table`. */
export interface LakeTable extends SnapshotRange {
  readonly tableId: number;
  readonly tableUuid: string;
  readonly schemaId: number;
  readonly name: string;
  readonly path: string | null;
  readonly pathIsRelative: boolean;
}

/** One version of a column (`ducklake_column`). */
export interface LakeColumn extends SnapshotRange {
  readonly columnId: number;
  readonly tableId: number;
  readonly order: number;
  readonly name: string;
  /** DuckLake type name (`int64`, `decimal(10,2)`, …). */
  readonly type: string;
  readonly initialDefault: string | null;
  readonly defaultValue: string | null;
  readonly nullsAllowed: boolean;
  readonly parentColumn: number | null;
}

/** One row of `ducklake_data_file`. */
export interface LakeDataFile extends SnapshotRange {
  readonly dataFileId: number;
  readonly tableId: number;
  readonly fileOrder: number | null;
  readonly path: string;
  readonly pathIsRelative: boolean;
  readonly recordCount: number;
  readonly fileSizeBytes: number;
  readonly footerSize: number | null;
  readonly rowIdStart: number | null;
  readonly partitionId: number | null;
  readonly encryptionKey: string | null;
  readonly mappingId: number | null;
  readonly partialMax: number | null;
}

/** One row of `ducklake_delete_file`. */
export interface LakeDeleteFile extends SnapshotRange {
  readonly deleteFileId: number;
  readonly tableId: number;
  readonly dataFileId: number;
  readonly path: string;
  readonly pathIsRelative: boolean;
  readonly format: string;
  readonly deleteCount: number;
  readonly fileSizeBytes: number;
  readonly encryptionKey: string | null;
  readonly partialMax: number | null;
}

/** A data file visible at a snapshot with its delete file at that snapshot, paths resolved. */
export interface VisibleFile {
  readonly data: LakeDataFile;
  /** Absolute (or URL) path of the data file. */
  readonly dataPath: string;
  readonly delete?: LakeDeleteFile;
  readonly deletePath?: string;
}

/** Which snapshot to read: the latest, a version, or the last one at or before a time. */
export type SnapshotRef =
  | { readonly kind: "latest" }
  | { readonly kind: "version"; readonly snapshotId: number }
  | { readonly kind: "timestamp"; readonly at: string | Date };
