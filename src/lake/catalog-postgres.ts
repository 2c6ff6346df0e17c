/**
 * A DuckLake catalog in Postgres (`pg`), in its own schema of the project's database, so
 * workers on many servers commit to one lake. Commits are serialised by a transaction-level
 * advisory lock keyed by the schema; reads need no lock. The DDL is the specification's
 * (BOOLEAN, UUID, TIMESTAMP WITH TIME ZONE); the session runs in UTC.
 */
import type pg from "pg";
import { pgDriver } from "../store/postgres/driver.js";
import { DatabaseUnreachableError } from "../store/postgres/errors.js";
import type { CatalogDb, CatalogRow } from "./catalog-db.js";
import { TransactionContext } from "./catalog-context.js";
import { LakeError } from "./errors.js";

/** The DuckLake 1.0 catalog tables as the specification declares them (Postgres). */
export const POSTGRES_CATALOG_DDL: readonly string[] = [
  "CREATE TABLE IF NOT EXISTS ducklake_column (column_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, table_id BIGINT, column_order BIGINT, column_name VARCHAR, column_type VARCHAR, initial_default VARCHAR, default_value VARCHAR, nulls_allowed BOOLEAN, parent_column BIGINT, default_value_type VARCHAR, default_value_dialect VARCHAR)",
  'CREATE TABLE IF NOT EXISTS ducklake_column_mapping (mapping_id BIGINT, table_id BIGINT, "type" VARCHAR)',
  'CREATE TABLE IF NOT EXISTS ducklake_column_tag (table_id BIGINT, column_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, "key" VARCHAR, "value" VARCHAR)',
  "CREATE TABLE IF NOT EXISTS ducklake_data_file (data_file_id BIGINT PRIMARY KEY, table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, file_order BIGINT, path VARCHAR, path_is_relative BOOLEAN, file_format VARCHAR, record_count BIGINT, file_size_bytes BIGINT, footer_size BIGINT, row_id_start BIGINT, partition_id BIGINT, encryption_key VARCHAR, mapping_id BIGINT, partial_max BIGINT)",
  "CREATE TABLE IF NOT EXISTS ducklake_delete_file (delete_file_id BIGINT PRIMARY KEY, table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, data_file_id BIGINT, path VARCHAR, path_is_relative BOOLEAN, format VARCHAR, delete_count BIGINT, file_size_bytes BIGINT, footer_size BIGINT, encryption_key VARCHAR, partial_max BIGINT)",
  "CREATE TABLE IF NOT EXISTS ducklake_file_column_stats (data_file_id BIGINT, table_id BIGINT, column_id BIGINT, column_size_bytes BIGINT, value_count BIGINT, null_count BIGINT, min_value VARCHAR, max_value VARCHAR, contains_nan BOOLEAN, extra_stats VARCHAR)",
  "CREATE TABLE IF NOT EXISTS ducklake_file_partition_value (data_file_id BIGINT, table_id BIGINT, partition_key_index BIGINT, partition_value VARCHAR)",
  "CREATE TABLE IF NOT EXISTS ducklake_file_variant_stats (data_file_id BIGINT, table_id BIGINT, column_id BIGINT, variant_path VARCHAR, shredded_type VARCHAR, column_size_bytes BIGINT, value_count BIGINT, null_count BIGINT, min_value VARCHAR, max_value VARCHAR, contains_nan BOOLEAN, extra_stats VARCHAR)",
  "CREATE TABLE IF NOT EXISTS ducklake_files_scheduled_for_deletion (data_file_id BIGINT, path VARCHAR, path_is_relative BOOLEAN, schedule_start TIMESTAMP WITH TIME ZONE)",
  "CREATE TABLE IF NOT EXISTS ducklake_inlined_data_tables (table_id BIGINT, table_name VARCHAR, schema_version BIGINT)",
  "CREATE TABLE IF NOT EXISTS ducklake_macro (schema_id BIGINT, macro_id BIGINT, macro_name VARCHAR, begin_snapshot BIGINT, end_snapshot BIGINT)",
  'CREATE TABLE IF NOT EXISTS ducklake_macro_impl (macro_id BIGINT, impl_id BIGINT, dialect VARCHAR, "sql" VARCHAR, "type" VARCHAR)',
  "CREATE TABLE IF NOT EXISTS ducklake_macro_parameters (macro_id BIGINT, impl_id BIGINT, column_id BIGINT, parameter_name VARCHAR, parameter_type VARCHAR, default_value VARCHAR, default_value_type VARCHAR)",
  'CREATE TABLE IF NOT EXISTS ducklake_metadata ("key" VARCHAR NOT NULL, "value" VARCHAR NOT NULL, "scope" VARCHAR, scope_id BIGINT)',
  "CREATE TABLE IF NOT EXISTS ducklake_name_mapping (mapping_id BIGINT, column_id BIGINT, source_name VARCHAR, target_field_id BIGINT, parent_column BIGINT, is_partition BOOLEAN)",
  'CREATE TABLE IF NOT EXISTS ducklake_partition_column (partition_id BIGINT, table_id BIGINT, partition_key_index BIGINT, column_id BIGINT, "transform" VARCHAR)',
  "CREATE TABLE IF NOT EXISTS ducklake_partition_info (partition_id BIGINT, table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT)",
  "CREATE TABLE IF NOT EXISTS ducklake_schema (schema_id BIGINT PRIMARY KEY, schema_uuid UUID, begin_snapshot BIGINT, end_snapshot BIGINT, schema_name VARCHAR, path VARCHAR, path_is_relative BOOLEAN)",
  "CREATE TABLE IF NOT EXISTS ducklake_schema_versions (begin_snapshot BIGINT, schema_version BIGINT, table_id BIGINT)",
  "CREATE TABLE IF NOT EXISTS ducklake_snapshot (snapshot_id BIGINT PRIMARY KEY, snapshot_time TIMESTAMP WITH TIME ZONE, schema_version BIGINT, next_catalog_id BIGINT, next_file_id BIGINT)",
  "CREATE TABLE IF NOT EXISTS ducklake_snapshot_changes (snapshot_id BIGINT PRIMARY KEY, changes_made VARCHAR, author VARCHAR, commit_message VARCHAR, commit_extra_info VARCHAR)",
  "CREATE TABLE IF NOT EXISTS ducklake_sort_expression (sort_id BIGINT, table_id BIGINT, sort_key_index BIGINT, expression VARCHAR, dialect VARCHAR, sort_direction VARCHAR, null_order VARCHAR)",
  "CREATE TABLE IF NOT EXISTS ducklake_sort_info (sort_id BIGINT, table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT)",
  "CREATE TABLE IF NOT EXISTS ducklake_table (table_id BIGINT, table_uuid UUID, begin_snapshot BIGINT, end_snapshot BIGINT, schema_id BIGINT, table_name VARCHAR, path VARCHAR, path_is_relative BOOLEAN)",
  "CREATE TABLE IF NOT EXISTS ducklake_table_column_stats (table_id BIGINT, column_id BIGINT, contains_null BOOLEAN, contains_nan BOOLEAN, min_value VARCHAR, max_value VARCHAR, extra_stats VARCHAR)",
  "CREATE TABLE IF NOT EXISTS ducklake_table_stats (table_id BIGINT, record_count BIGINT, next_row_id BIGINT, file_size_bytes BIGINT)",
  'CREATE TABLE IF NOT EXISTS ducklake_tag (object_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, "key" VARCHAR, "value" VARCHAR)',
  'CREATE TABLE IF NOT EXISTS ducklake_view (view_id BIGINT, view_uuid UUID, begin_snapshot BIGINT, end_snapshot BIGINT, schema_id BIGINT, view_name VARCHAR, dialect VARCHAR, "sql" VARCHAR, column_aliases VARCHAR)',
];

/** `?` placeholders as `$1`, `$2`, … (our catalog SQL has no `?` inside literals). */
function dollarParams(sql: string): string {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
}

const SCHEMA = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The store's connection defaults: fail an unreachable server after 10 s, keep idle connections alive. */
function poolConfig(connection: string | pg.PoolConfig): pg.PoolConfig {
  return {
    application_name: "sluice",
    connectionTimeoutMillis: 10_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(typeof connection === "string" ? { connectionString: connection } : connection),
  };
}

/** A connected client. @throws DatabaseUnreachableError (the URL shown without its password) */
async function connectClient(config: pg.PoolConfig): Promise<pg.Client> {
  const client = new (pgDriver().Client)(config);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    let where = "the project's database";
    try {
      const u = new URL(config.connectionString ?? "");
      if (u.password) u.password = "***";
      where = u.toString();
    } catch {
      // no URL to show
    }
    const e = err as { code?: string; message?: string };
    throw new DatabaseUnreachableError(where, e.message || e.code || "connection failed", { cause: err });
  }
  return client;
}

/**
 * The schemas of a Postgres database that hold a DuckLake catalog (a `ducklake_metadata`
 * table) and whose names start with `prefix`, sorted. Creates nothing.
 * @throws DatabaseUnreachableError
 */
export async function postgresLakeSchemas(connection: string | pg.PoolConfig, prefix: string): Promise<string[]> {
  const client = await connectClient(poolConfig(connection));
  try {
    const { rows } = await client.query(
      "SELECT table_schema AS s FROM information_schema.tables WHERE table_name = 'ducklake_metadata' AND starts_with(table_schema, $1) ORDER BY 1",
      [prefix],
    );
    return rows.map((r: { s: string }) => r.s);
  } finally {
    await client.end();
  }
}

/**
 * Open a Postgres catalog in `schema` (created when missing, unless `readOnly`: then every
 * transaction of its connections is read-only and nothing is created). Reads share a small
 * pool; each commit takes its own connection.
 */
export async function openPostgresCatalog(
  connection: string | pg.PoolConfig,
  schema: string,
  options: { readOnly?: boolean } = {},
): Promise<CatalogDb> {
  if (!SCHEMA.test(schema))
    throw new LakeError(
      "LAKE_WRITE_INVALID",
      `catalog schema ${JSON.stringify(schema)} is not a plain identifier; use letters, digits and _`,
    );
  const config = poolConfig(connection);
  const setup = await connectClient(config);
  try {
    if (!options.readOnly) await setup.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } finally {
    await setup.end();
  }
  const readOnly = options.readOnly ? " -c default_transaction_read_only=on" : "";
  const pool = new (pgDriver().Pool)({
    ...config,
    max: 4,
    options: `${config.options ?? ""} -c search_path="${schema}" -c TimeZone=UTC${readOnly}`.trim(),
  });
  // Statements issued inside transaction(fn) run on that transaction's connection; all others on the pool.
  const current = new TransactionContext<pg.PoolClient>();
  const target = (): pg.Pool | pg.PoolClient => current.get() ?? pool;
  return {
    dialect: "postgres",
    baseDir: process.cwd(),
    async all(sql, params = []) {
      return (await target().query(dollarParams(sql), params as unknown[])).rows as CatalogRow[];
    },
    async run(sql, params = []) {
      await target().query(dollarParams(sql), params as unknown[]);
    },
    async transaction(fn) {
      if (current.get()) return fn();
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`sluice-lake:${schema}`]);
        const out = await current.run(client, fn);
        await client.query("COMMIT");
        return out;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}
