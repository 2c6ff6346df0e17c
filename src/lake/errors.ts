/**
 * Named errors of the DuckLake catalog reader and writer. Stable `code`s; messages say
 * what was wrong and what to do.
 */
import { SluiceError } from "../sdk/errors.js";

/** Stable codes raised by `src/lake/`. */
export type LakeErrorCode =
  | "LAKE_NOT_FOUND"
  | "LAKE_CATALOG_INVALID"
  | "LAKE_VERSION_UNSUPPORTED"
  | "LAKE_SNAPSHOT_NOT_FOUND"
  | "LAKE_TABLE_NOT_FOUND"
  | "LAKE_TYPE_UNSUPPORTED"
  | "LAKE_FEATURE_UNSUPPORTED"
  | "LAKE_WRITE_INVALID"
  | "LAKE_CAST_LOSSY"
  | "LAKE_COMMIT_CONFLICT"
  | "LAKE_AUDIT_FAILED"
  | "LAKE_STORAGE_FAILED"
  | "LAKE_ATTACH_READ_ONLY";

/** Base class of the lake's errors. */
export class LakeError extends SluiceError<LakeErrorCode> {}

/** A snapshot asked for by version or time does not exist. */
export class SnapshotNotFoundError extends LakeError {
  constructor(what: string) {
    super(
      "LAKE_SNAPSHOT_NOT_FOUND",
      `no snapshot ${what} in this lake; list them with \`sluice lake snapshots <lake>\` and pick an existing version or a later time`,
    );
  }
}

/** A table does not exist at the snapshot read. */
export class TableNotFoundError extends LakeError {
  constructor(table: string, snapshot: number) {
    super(
      "LAKE_TABLE_NOT_FOUND",
      `table ${table} does not exist at snapshot ${snapshot}; check the name (schema.table) or read at a snapshot where it exists`,
    );
  }
}

/** A catalog or file uses a DuckLake feature this implementation does not handle yet. */
export class LakeUnsupportedError extends LakeError {
  constructor(feature: string) {
    super(
      "LAKE_FEATURE_UNSUPPORTED",
      `${feature} is not supported by Sluice's DuckLake implementation yet (see src/lake/README.md); read this lake with the DuckDB ducklake extension instead`,
    );
  }
}
