/**
 * The DuckLake 1.0 catalog schema: its 28 tables, declared the way the DuckDB ducklake
 * extension declares them in a SQLite catalog (BOOLEAN as BIGINT 0/1, TIMESTAMP WITH TIME
 * ZONE and UUID as VARCHAR text). `test/lake/writer.test.ts` compares it with a catalog the
 * extension wrote.
 */

/** `CREATE TABLE` statements of every catalog table (SQLite). */
export const SQLITE_CATALOG_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS ducklake_column(column_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, table_id BIGINT, column_order BIGINT, column_name VARCHAR, column_type VARCHAR, initial_default VARCHAR, default_value VARCHAR, nulls_allowed BIGINT, parent_column BIGINT, default_value_type VARCHAR, default_value_dialect VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS ducklake_column_mapping(mapping_id BIGINT, table_id BIGINT, "type" VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS ducklake_column_tag(table_id BIGINT, column_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, "key" VARCHAR, "value" VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS ducklake_data_file(data_file_id BIGINT PRIMARY KEY, table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, file_order BIGINT, path VARCHAR, path_is_relative BIGINT, file_format VARCHAR, record_count BIGINT, file_size_bytes BIGINT, footer_size BIGINT, row_id_start BIGINT, partition_id BIGINT, encryption_key VARCHAR, mapping_id BIGINT, partial_max BIGINT)`,
  `CREATE TABLE IF NOT EXISTS ducklake_delete_file(delete_file_id BIGINT PRIMARY KEY, table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, data_file_id BIGINT, path VARCHAR, path_is_relative BIGINT, format VARCHAR, delete_count BIGINT, file_size_bytes BIGINT, footer_size BIGINT, encryption_key VARCHAR, partial_max BIGINT)`,
  `CREATE TABLE IF NOT EXISTS ducklake_file_column_stats(data_file_id BIGINT, table_id BIGINT, column_id BIGINT, column_size_bytes BIGINT, value_count BIGINT, null_count BIGINT, min_value VARCHAR, max_value VARCHAR, contains_nan BIGINT, extra_stats VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS ducklake_file_partition_value(data_file_id BIGINT, table_id BIGINT, partition_key_index BIGINT, partition_value VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS ducklake_file_variant_stats(data_file_id BIGINT, table_id BIGINT, column_id BIGINT, variant_path VARCHAR, shredded_type VARCHAR, column_size_bytes BIGINT, value_count BIGINT, null_count BIGINT, min_value VARCHAR, max_value VARCHAR, contains_nan BIGINT, extra_stats VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS ducklake_files_scheduled_for_deletion(data_file_id BIGINT, path VARCHAR, path_is_relative BIGINT, schedule_start VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS ducklake_inlined_data_tables(table_id BIGINT, table_name VARCHAR, schema_version BIGINT)`,
  `CREATE TABLE IF NOT EXISTS ducklake_macro(schema_id BIGINT, macro_id BIGINT, macro_name VARCHAR, begin_snapshot BIGINT, end_snapshot BIGINT)`,
  `CREATE TABLE IF NOT EXISTS ducklake_macro_impl(macro_id BIGINT, impl_id BIGINT, dialect VARCHAR, "sql" VARCHAR, "type" VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS ducklake_macro_parameters(macro_id BIGINT, impl_id BIGINT, column_id BIGINT, parameter_name VARCHAR, parameter_type VARCHAR, default_value VARCHAR, default_value_type VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS ducklake_metadata("key" VARCHAR NOT NULL, "value" VARCHAR NOT NULL, "scope" VARCHAR, scope_id BIGINT)`,
  `CREATE TABLE IF NOT EXISTS ducklake_name_mapping(mapping_id BIGINT, column_id BIGINT, source_name VARCHAR, target_field_id BIGINT, parent_column BIGINT, is_partition BIGINT)`,
  `CREATE TABLE IF NOT EXISTS ducklake_partition_column(partition_id BIGINT, table_id BIGINT, partition_key_index BIGINT, column_id BIGINT, "transform" VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS ducklake_partition_info(partition_id BIGINT, table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT)`,
  `CREATE TABLE IF NOT EXISTS ducklake_schema(schema_id BIGINT PRIMARY KEY, schema_uuid VARCHAR, begin_snapshot BIGINT, end_snapshot BIGINT, schema_name VARCHAR, path VARCHAR, path_is_relative BIGINT)`,
  `CREATE TABLE IF NOT EXISTS ducklake_schema_versions(begin_snapshot BIGINT, schema_version BIGINT, table_id BIGINT)`,
  `CREATE TABLE IF NOT EXISTS ducklake_snapshot(snapshot_id BIGINT PRIMARY KEY, snapshot_time VARCHAR, schema_version BIGINT, next_catalog_id BIGINT, next_file_id BIGINT)`,
  `CREATE TABLE IF NOT EXISTS ducklake_snapshot_changes(snapshot_id BIGINT PRIMARY KEY, changes_made VARCHAR, author VARCHAR, commit_message VARCHAR, commit_extra_info VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS ducklake_sort_expression(sort_id BIGINT, table_id BIGINT, sort_key_index BIGINT, expression VARCHAR, dialect VARCHAR, sort_direction VARCHAR, null_order VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS ducklake_sort_info(sort_id BIGINT, table_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT)`,
  `CREATE TABLE IF NOT EXISTS ducklake_table(table_id BIGINT, table_uuid VARCHAR, begin_snapshot BIGINT, end_snapshot BIGINT, schema_id BIGINT, table_name VARCHAR, path VARCHAR, path_is_relative BIGINT)`,
  `CREATE TABLE IF NOT EXISTS ducklake_table_column_stats(table_id BIGINT, column_id BIGINT, contains_null BIGINT, contains_nan BIGINT, min_value VARCHAR, max_value VARCHAR, extra_stats VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS ducklake_table_stats(table_id BIGINT, record_count BIGINT, next_row_id BIGINT, file_size_bytes BIGINT)`,
  `CREATE TABLE IF NOT EXISTS ducklake_tag(object_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, "key" VARCHAR, "value" VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS ducklake_view(view_id BIGINT, view_uuid VARCHAR, begin_snapshot BIGINT, end_snapshot BIGINT, schema_id BIGINT, view_name VARCHAR, dialect VARCHAR, "sql" VARCHAR, column_aliases VARCHAR)`,
];

/** The format version Sluice writes in `ducklake_metadata`. */
export const DUCKLAKE_VERSION = "1.0";
