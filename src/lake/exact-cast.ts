/**
 * Whether a slice's column can go into a table's existing column without changing a value
 * (pure). Append, merge and partition replace keep the table's columns, so a slice column of
 * another type is cast to the column's type when written; DuckDB's cast rounds (DOUBLE 2.7 →
 * INTEGER 3), truncates or wraps silently, so a write whose cast could change a value is refused
 * before anything is written. The rule is by type, not by the slice's values: a cast is allowed
 * when every value of the slice's type is stored exactly (widening: INTEGER → BIGINT,
 * DECIMAL(4,2) → DECIMAL(10,2), FLOAT → DOUBLE, DATE → TIMESTAMP), so a write does not succeed
 * one day and fail the next with the same SQL. A DECIMAL goes into a FLOAT or DOUBLE when its
 * digits fit the float's (6 and 15), as a decimal literal such as `2.5` in a DOUBLE column does.
 * A slice type the column may be promoted to (`type-promotion.ts`) widens the column instead
 * (`write-plan.ts`).
 */
import { duckdbTypeOf } from "./column-types.js";
import { LakeError } from "./errors.js";

/** Bits and signedness of the integer types. */
const INTEGERS: Readonly<Record<string, { bits: number; signed: boolean }>> = {
  int8: { bits: 8, signed: true },
  int16: { bits: 16, signed: true },
  int32: { bits: 32, signed: true },
  int64: { bits: 64, signed: true },
  int128: { bits: 128, signed: true },
  uint8: { bits: 8, signed: false },
  uint16: { bits: 16, signed: false },
  uint32: { bits: 32, signed: false },
  uint64: { bits: 64, signed: false },
  uint128: { bits: 128, signed: false },
};

/** Significand bits (integers held exactly) and decimal digits (round-tripped) of the floats. */
const FLOATS: Readonly<Record<string, { mantissa: number; digits: number }>> = {
  float32: { mantissa: 24, digits: 6 },
  float64: { mantissa: 53, digits: 15 },
};

/** Timestamps by precision, coarsest first (`timestamp_ns` is left out: its range is narrower). */
const TIMESTAMPS = ["timestamp_s", "timestamp_ms", "timestamp"];

/** Other exact casts between distinct types. */
const OTHER: ReadonlySet<string> = new Set(["date>timestamp_s", "date>timestamp_ms", "date>timestamp", "json>varchar"]);

const DECIMAL = /^decimal\((\d+),(\d+)\)$/;

/** Decimal digits needed for every value of an integer type. */
function integerDigits(t: { bits: number; signed: boolean }): number {
  return String(2n ** BigInt(t.signed ? t.bits - 1 : t.bits)).length;
}

function decimal(type: string): { precision: number; scale: number } | undefined {
  const m = DECIMAL.exec(type.replace(/\s+/g, "").toLowerCase());
  return m ? { precision: Number(m[1]), scale: Number(m[2]) } : undefined;
}

/** Whether every value of DuckLake type `from` is stored unchanged in a column of DuckLake type `to`. */
export function castIsExact(from: string, to: string): boolean {
  const [f, t] = [from.replace(/\s+/g, "").toLowerCase(), to.replace(/\s+/g, "").toLowerCase()];
  if (f === t) return true;
  const [fi, ti] = [INTEGERS[f], INTEGERS[t]];
  const [fd, td] = [decimal(f), decimal(t)];
  const tf = FLOATS[t];
  if (fi) {
    if (ti)
      return fi.signed ? ti.signed && ti.bits >= fi.bits : ti.bits > fi.bits || (!ti.signed && ti.bits >= fi.bits);
    if (tf) return fi.bits - (fi.signed ? 1 : 0) <= tf.mantissa;
    if (td) return td.precision - td.scale >= integerDigits(fi);
    return false;
  }
  if (fd) {
    if (td) return td.scale >= fd.scale && td.precision - td.scale >= fd.precision - fd.scale;
    if (tf) return fd.precision <= tf.digits;
    if (ti) return fd.scale === 0 && fd.precision < integerDigits(ti);
    return false;
  }
  if (FLOATS[f]) return f === "float32" && t === "float64";
  const [fs, ts] = [TIMESTAMPS.indexOf(f), TIMESTAMPS.indexOf(t)];
  if (fs >= 0 && ts >= 0) return ts >= fs;
  return OTHER.has(`${f}>${t}`);
}

/** DuckDB's name of a DuckLake type, as users write it in SQL. */
function sqlType(lakeType: string): string {
  try {
    return duckdbTypeOf(lakeType);
  } catch {
    return lakeType;
  }
}

/** A slice column whose type the table's column cannot hold exactly. */
export interface LossyColumn {
  readonly name: string;
  /** The slice's DuckLake type. */
  readonly from: string;
  /** The table column's DuckLake type. */
  readonly to: string;
}

/** The slice's columns that the table's same-named columns cannot hold exactly, in slice order. */
export function lossyColumns(
  table: readonly { name: string; type: string }[],
  slice: readonly { name: string; lakeType: string }[],
): LossyColumn[] {
  const types = new Map(table.map((c) => [c.name, c.type]));
  const out: LossyColumn[] = [];
  for (const s of slice) {
    const to = types.get(s.name);
    if (to !== undefined && !castIsExact(s.lakeType, to)) out.push({ name: s.name, from: s.lakeType, to });
  }
  return out;
}

/**
 * A write into an existing table whose slice has a column the table's column cannot hold
 * without changing values. Terminal: the same SQL fails the same way on a retry.
 */
export class LossyCastError extends LakeError {
  constructor(
    /** Qualified table name (`main.t`). */
    readonly table: string,
    readonly columns: readonly LossyColumn[],
  ) {
    const list = columns
      .map((c) => `column ${c.name} is ${sqlType(c.from)} in the SELECT but ${sqlType(c.to)} in the table`)
      .join("; ");
    super(
      "LAKE_CAST_LOSSY",
      `table ${table}: ${list}, and writing it would change values (round, truncate or overflow); cast it in the SELECT to the table's type if that is meant (e.g. CAST(${columns[0]!.name} AS ${sqlType(columns[0]!.to)})), or replace the whole table (no append, key= or partition) to change the column's type; append, merge and partition replace widen a column only by DuckLake's type promotions (TINYINT → SMALLINT → INTEGER → BIGINT, UTINYINT → USMALLINT → UINTEGER → UBIGINT, FLOAT → DOUBLE)`,
    );
  }

  override get terminal(): boolean {
    return true;
  }
}
