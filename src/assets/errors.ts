/**
 * Named errors of the asset backends (object store, resources, volumes, data tables).
 * Every error has a stable `code` and a message that says what to do.
 */
import { SluiceError } from "../sdk/errors.js";

/** Stable codes raised by the asset backends. */
export type AssetErrorCode =
  | "ASSET_PATH_INVALID"
  | "ASSET_NOT_FOUND"
  | "ASSET_CONFIG_INVALID"
  | "ASSET_BACKEND_FAILED"
  | "ASSET_HOST_MISSING"
  | "RESOURCE_NOT_FOUND"
  | "DATATABLE_QUERY_FAILED"
  | "DUCKLAKE_REFERENCE_INVALID";

/** Base class of the asset backends' errors. */
export class AssetError extends SluiceError<AssetErrorCode> {}

/** A key, path or name would leave its storage root, or is malformed. */
export class AssetPathError extends AssetError {
  constructor(what: string, value: string, reason: string) {
    super(
      "ASSET_PATH_INVALID",
      `${what} ${JSON.stringify(value)} is not allowed: ${reason}; use a relative path of plain segments like "demo/raw.json"`,
    );
  }
}

/** The asset configuration (`sluice.json` `assets`, or environment variables) is invalid. */
export class AssetConfigError extends AssetError {
  constructor(message: string) {
    super("ASSET_CONFIG_INVALID", message);
  }
}

/** A resource that does not exist was read. */
export class ResourceNotFoundError extends AssetError {
  constructor(readonly path: string) {
    super(
      "RESOURCE_NOT_FOUND",
      `resource ${JSON.stringify(path)} does not exist: create it with setResource(value, ${JSON.stringify(path)}) or pass undefinedIfEmpty`,
    );
  }
}

/**
 * A `ducklake://` literal in DuckDB SQL that is not a lake `ATTACH` Sluice runs (a malformed lake
 * name, or the URI used as a file path): lakes are read through an `ATTACH` and written by
 * `materialize`, without the DuckLake extension.
 */
export class DucklakeReferenceError extends AssetError {
  constructor(uri: string) {
    super(
      "DUCKLAKE_REFERENCE_INVALID",
      `${uri}: in DuckDB SQL a lake is read as \`ATTACH 'ducklake://<lake>' AS <alias>\` (a lake name of letters, digits, _ and -), then <alias>.<table>, and written with \`-- materialize ducklake://<lake>/<table>\`; this literal is neither, so fix the lake name or use one of those forms`,
    );
  }
}
