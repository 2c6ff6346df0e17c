/**
 * `ATTACH 'ducklake://<name>' AS <alias>` without the DuckDB extension: the alias becomes a
 * schema of the session holding one view per table of the lake at its latest snapshot
 * (each view reads the visible files, deletes applied). Time travel (`AT (VERSION => …)`)
 * is not rewritten yet.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import type { LakeReader } from "./reader.js";
import { ident } from "./scan-plan.js";
import type { SnapshotRef } from "./types.js";

/** Create schema `alias` with a view per table of `lake` at `ref` (tables of schema `main` by name, others as `schema__table`). */
export async function attachLakeViews(
  conn: DuckDBConnection,
  lake: LakeReader,
  alias: string,
  ref: SnapshotRef = { kind: "latest" },
): Promise<string[]> {
  await conn.run(`CREATE SCHEMA IF NOT EXISTS ${ident(alias)}`);
  const names: string[] = [];
  let tables;
  try {
    tables = await lake.tables(ref);
  } catch (err) {
    if ((err as { code?: string }).code === "LAKE_SNAPSHOT_NOT_FOUND") return names;
    throw err;
  }
  for (const t of tables) {
    const view = t.schema.name === "main" ? t.table.name : `${t.schema.name}__${t.table.name}`;
    const { sql } = await lake.scan(t.name, ref);
    await conn.run(`CREATE OR REPLACE VIEW ${ident(alias)}.${ident(view)} AS ${sql}`);
    names.push(view);
  }
  return names;
}
