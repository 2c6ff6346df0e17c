/**
 * A DuckLake catalog in a DuckDB database file, opened read-only through @duckdb/node-api
 * (attached as `cat`; queries name the `ducklake_*` tables unqualified through `USE`).
 */
import { dirname, resolve } from "node:path";
import { sqlString } from "../assets/duckdb.js";
import type { CatalogDb, CatalogRow } from "./catalog-db.js";
import { LakeError } from "./errors.js";

/** Open a DuckDB-file catalog read-only. */
export async function openDuckdbCatalog(path: string): Promise<CatalogDb> {
  // Loaded on first use: DuckDB's bindings cost every process that imports the lake.
  const { DuckDBInstance } = await import("@duckdb/node-api");
  const instance = await DuckDBInstance.create(":memory:");
  const conn = await instance.connect();
  await conn.run(`ATTACH ${sqlString(resolve(path))} AS cat (READ_ONLY); USE cat`);
  const ro = (): never => {
    throw new LakeError(
      "LAKE_WRITE_INVALID",
      `the DuckDB-file catalog ${path} is opened read-only by Sluice; write to a SQLite or Postgres catalog`,
    );
  };
  return {
    dialect: "duckdb",
    baseDir: dirname(resolve(path)),
    async all(sql, params = []) {
      const reader = await conn.runAndReadAll(sql, params as never);
      return reader.getRowObjectsJson() as CatalogRow[];
    },
    async run() {
      ro();
    },
    async transaction() {
      return ro();
    },
    async close() {
      conn.closeSync();
      instance.closeSync();
    },
  };
}
