/**
 * DuckLake 1.0 column type names (`ducklake_column.column_type`) and DuckDB's SQL type
 * names, both ways. Primitive types only; nested types (list, struct, map), variant and
 * geometry are refused with {@link LakeUnsupportedError}.
 */
import { LakeError, LakeUnsupportedError } from "./errors.js";

const TO_DUCKDB: Readonly<Record<string, string>> = {
  boolean: "BOOLEAN",
  int8: "TINYINT",
  int16: "SMALLINT",
  int32: "INTEGER",
  int64: "BIGINT",
  uint8: "UTINYINT",
  uint16: "USMALLINT",
  uint32: "UINTEGER",
  uint64: "UBIGINT",
  int128: "HUGEINT",
  uint128: "UHUGEINT",
  float32: "FLOAT",
  float64: "DOUBLE",
  time: "TIME",
  timetz: "TIME WITH TIME ZONE",
  date: "DATE",
  timestamp: "TIMESTAMP",
  timestamptz: "TIMESTAMP WITH TIME ZONE",
  timestamp_s: "TIMESTAMP_S",
  timestamp_ms: "TIMESTAMP_MS",
  timestamp_ns: "TIMESTAMP_NS",
  interval: "INTERVAL",
  varchar: "VARCHAR",
  blob: "BLOB",
  json: "JSON",
  uuid: "UUID",
};

const FROM_DUCKDB: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.entries(TO_DUCKDB).map(([k, v]) => [v, k])),
  BOOL: "boolean",
  INT: "int32",
  INT4: "int32",
  INT8: "int64",
  INT2: "int16",
  INT1: "int8",
  LONG: "int64",
  FLOAT4: "float32",
  REAL: "float32",
  FLOAT8: "float64",
  TEXT: "varchar",
  STRING: "varchar",
  TIMETZ: "timetz",
  TIMESTAMPTZ: "timestamptz",
  TIMESTAMP_US: "timestamp",
  DATETIME: "timestamp",
};

const DECIMAL = /^decimal\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)$/i;

/** The DuckDB type of a DuckLake column type. @throws LakeUnsupportedError for nested and unknown types */
export function duckdbTypeOf(lakeType: string): string {
  const d = DECIMAL.exec(lakeType);
  if (d) return `DECIMAL(${d[1]},${d[2]})`;
  const t = TO_DUCKDB[lakeType.toLowerCase()];
  if (!t) throw new LakeUnsupportedError(`column type ${JSON.stringify(lakeType)}`);
  return t;
}

/** The DuckLake type of a DuckDB type name (as `DESCRIBE` prints it). @throws LakeError for nested and unknown types */
export function lakeTypeOf(duckdbType: string): string {
  const upper = duckdbType.trim().toUpperCase();
  const d = DECIMAL.exec(upper);
  if (d) return `decimal(${d[1]},${d[2]})`;
  const t = FROM_DUCKDB[upper];
  if (!t)
    throw new LakeError(
      "LAKE_TYPE_UNSUPPORTED",
      `DuckDB type ${duckdbType} cannot be stored in a Sluice lake table yet (nested, enum, bit, variant and geometry types are not supported); cast the column to a primitive type in the SELECT`,
    );
  return t;
}

/** Whether min/max statistics are kept for a DuckLake type (DuckLake 1.0 "Type Encoding for Statistics"). */
export function hasMinMax(lakeType: string): boolean {
  return !["int128", "uint128", "timetz", "interval"].includes(lakeType.toLowerCase());
}

/** Whether a DuckLake type is floating point (`contains_nan` is tracked for it). */
export function isFloat(lakeType: string): boolean {
  return lakeType === "float32" || lakeType === "float64";
}
