/**
 * Asset storage behind pipeline assets: the `s3://` object store (a local directory by
 * default, or a bucket), `$res:` resources (in the store), `volume://` directories and
 * `datatable://` DuckDB files. See `docs/ARCHITECTURE.md` ("Pipelines").
 */
export * from "./errors.js";
export * from "./config.js";
export * from "./safe-path.js";
export * from "./object-store.js";
export * from "./resources.js";
export * from "./volumes.js";
export * from "./datatables.js";
export * from "./duckdb.js";
export * from "./host.js";
