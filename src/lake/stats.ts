/**
 * Column statistics (DuckLake 1.0 "Type Encoding for Statistics"): per-file statistics
 * and their merge into the table's running statistics. Values are strings; comparing them
 * needs the column's type. Pure.
 */
import { hasMinMax, isFloat } from "./column-types.js";

/** `ducklake_file_column_stats` of one column of one new data file. */
export interface FileColumnStats {
  readonly columnId: number;
  readonly columnSizeBytes: number | null;
  /** Non-NULL values in the file (what the extension records). */
  readonly valueCount: number;
  readonly nullCount: number;
  readonly min: string | null;
  readonly max: string | null;
  /** NaN seen (floating point columns only, else null). */
  readonly containsNan: boolean | null;
}

/** `ducklake_table_column_stats` of one column. */
export interface TableColumnStats {
  readonly columnId: number;
  readonly containsNull: boolean;
  readonly containsNan: boolean | null;
  readonly min: string | null;
  readonly max: string | null;
}

const INTEGER = /^u?int(8|16|32|64|128)$/;

function compareDecimal(a: string, b: string): number {
  const parse = (s: string) => {
    const neg = s.startsWith("-");
    const [i = "0", f = ""] = s.replace(/^[-+]/, "").split(".");
    return { neg, i: i.replace(/^0+(?=\d)/, ""), f };
  };
  const x = parse(a);
  const y = parse(b);
  if (x.neg !== y.neg) return x.neg ? -1 : 1;
  const width = Math.max(x.f.length, y.f.length);
  const xs = `${x.i.padStart(40, "0")}${x.f.padEnd(width, "0")}`;
  const ys = `${y.i.padStart(40, "0")}${y.f.padEnd(width, "0")}`;
  const c = xs < ys ? -1 : xs > ys ? 1 : 0;
  return x.neg ? -c : c;
}

function floatOf(s: string): number {
  if (s === "inf" || s === "infinity") return Number.POSITIVE_INFINITY;
  if (s === "-inf" || s === "-infinity") return Number.NEGATIVE_INFINITY;
  return Number(s);
}

/** Compare two statistics strings of a DuckLake type (<0, 0, >0). */
export function compareStat(lakeType: string, a: string, b: string): number {
  if (INTEGER.test(lakeType)) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (lakeType.startsWith("decimal")) return compareDecimal(a, b);
  if (isFloat(lakeType)) return floatOf(a) - floatOf(b);
  if (lakeType === "date" || lakeType.startsWith("timestamp")) {
    // infinity sorts last, -infinity first; ISO strings of one type sort as text otherwise.
    const rank = (s: string) => (s === "-infinity" ? -1 : s === "infinity" ? 1 : 0);
    if (rank(a) !== rank(b)) return rank(a) - rank(b);
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The table's statistics of a column after adding one file's statistics. */
export function mergeColumnStats(
  lakeType: string,
  table: TableColumnStats | undefined,
  file: FileColumnStats,
): TableColumnStats {
  const minOf = (x: string | null, y: string | null) =>
    x === null ? y : y === null ? x : compareStat(lakeType, x, y) <= 0 ? x : y;
  const maxOf = (x: string | null, y: string | null) =>
    x === null ? y : y === null ? x : compareStat(lakeType, x, y) >= 0 ? x : y;
  const keep = hasMinMax(lakeType);
  const nan = isFloat(lakeType) ? Boolean(table?.containsNan) || Boolean(file.containsNan) : null;
  if (!table)
    return {
      columnId: file.columnId,
      containsNull: file.nullCount > 0,
      containsNan: nan,
      min: keep ? file.min : null,
      max: keep ? file.max : null,
    };
  return {
    columnId: file.columnId,
    containsNull: table.containsNull || file.nullCount > 0,
    containsNan: nan,
    min: keep ? minOf(table.min, file.min) : null,
    max: keep ? maxOf(table.max, file.max) : null,
  };
}

/** The SQL expression of a column's min/max statistic as DuckLake encodes it (over `expr`). */
export function statExpression(lakeType: string, expr: string, fn: "min" | "max"): string {
  if (!hasMinMax(lakeType)) return "CAST(NULL AS VARCHAR)";
  if (lakeType === "boolean") return `CAST(CAST(${fn}(${expr}) AS INTEGER) AS VARCHAR)`;
  if (lakeType === "blob") return `hex(${fn}(${expr}))`;
  if (isFloat(lakeType)) {
    // NaN is excluded from min/max; DuckDB prints infinities as inf/-inf already.
    return `CAST(${fn}(${expr}) FILTER (WHERE NOT isnan(${expr})) AS VARCHAR)`;
  }
  return `CAST(${fn}(${expr}) AS VARCHAR)`;
}
