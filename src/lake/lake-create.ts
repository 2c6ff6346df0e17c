/**
 * Creating a DuckLake 1.0 catalog (a SQLite file, or any {@link CatalogDb}): the 28 catalog tables, the global
 * metadata (`version` 1.0, `created_by`, `data_path`, `encrypted`), snapshot 0 and the
 * `main` schema, as the extension does on its first ATTACH. Idempotent: an existing
 * catalog is left as it is (checked inside the write transaction, so two processes
 * creating one lake at once create it once).
 */
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { CatalogDb } from "./catalog-db.js";
import { DUCKLAKE_VERSION, SQLITE_CATALOG_DDL } from "./catalog-ddl.js";
import { catalogTime } from "./catalog-commit.js";
import { openSqliteCatalog } from "./catalog-sqlite.js";
import { isUrl } from "./paths.js";

/** Who wrote the catalog (`ducklake_metadata.created_by`). */
const CREATED_BY = "Sluice";

/** Options of {@link createLake}. */
export interface CreateLakeOptions {
  /** Folder (or URL) of the data files; stored absolute with a trailing `/`. */
  readonly dataPath: string;
}

/** Open a SQLite catalog, creating the lake when the file has none yet. */
export async function createLake(catalogPath: string, options: CreateLakeOptions): Promise<CatalogDb> {
  mkdirSync(dirname(resolve(catalogPath)), { recursive: true });
  const db = openSqliteCatalog(catalogPath, { create: true });
  try {
    await initLake(db, SQLITE_CATALOG_DDL, options);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

/** Create the catalog tables (`ddl`) and the lake in `db` unless it already holds one. */
export async function initLake(
  db: CatalogDb,
  ddlStatements: readonly string[],
  options: CreateLakeOptions,
): Promise<void> {
  const dataPath = isUrl(options.dataPath) ? options.dataPath : resolve(options.dataPath);
  const withSlash = dataPath.endsWith("/") ? dataPath : `${dataPath}/`;
  {
    await db.transaction(async () => {
      for (const ddl of ddlStatements) await db.run(ddl);
      const [existing] = await db.all("SELECT count(*) AS n FROM ducklake_snapshot");
      if (Number(existing?.n ?? 0) > 0) return;
      const meta: Array<[string, string]> = [
        ["version", DUCKLAKE_VERSION],
        ["created_by", CREATED_BY],
        ["data_path", withSlash],
        ["encrypted", "false"],
      ];
      for (const [k, v] of meta)
        await db.run("INSERT INTO ducklake_metadata (key, value, scope, scope_id) VALUES (?, ?, NULL, NULL)", [k, v]);
      await db.run(
        "INSERT INTO ducklake_snapshot (snapshot_id, snapshot_time, schema_version, next_catalog_id, next_file_id) VALUES (0, ?, 0, 1, 0)",
        [catalogTime(new Date())],
      );
      await db.run(
        "INSERT INTO ducklake_snapshot_changes (snapshot_id, changes_made, author, commit_message, commit_extra_info) VALUES (0, 'created_schema:\"main\"', NULL, NULL, NULL)",
      );
      await db.run(
        "INSERT INTO ducklake_schema (schema_id, schema_uuid, begin_snapshot, end_snapshot, schema_name, path, path_is_relative) VALUES (0, ?, 0, NULL, 'main', 'main/', ?)",
        [randomUUID(), true],
      );
    });
  }
}
