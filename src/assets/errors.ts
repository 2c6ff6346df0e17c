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
  | "DUCKLAKE_NOT_AVAILABLE";

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

/** DuckLake assets are tracked in the lineage but cannot be executed in this version. */
export class DucklakeNotAvailableError extends AssetError {
  constructor(uri: string) {
    super(
      "DUCKLAKE_NOT_AVAILABLE",
      `${uri}: DuckLake tables are parsed and tracked in the lineage graph, but Sluice cannot execute DuckLake reads or writes yet; use a datatable:// table, or declare the write with \`// asset write ${uri}\` and write it with your own tooling`,
    );
  }
}
