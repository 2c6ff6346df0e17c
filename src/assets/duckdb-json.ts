/**
 * The one rule for DuckDB values as JSON, used by every result Sluice hands out: a DuckDB
 * script's run result, a data-table query, a lake table's preview and reads, a data test's
 * examples. Exact where JSON has no type of its own:
 *
 * - integers: JSON numbers, as decimal strings beyond 2^53 (BIGINT, HUGEINT, …);
 * - DECIMAL: in values handed to code (a script's run result, a data-table query) a JSON number
 *   when one holds it exactly (up to 15 significant digits: `10.5`), else its exact digits as a
 *   string; in what is shown and compared exactly (lake previews and reads, data-test examples)
 *   always the exact digits as DuckDB prints them (`"10.50"`); FLOAT, DOUBLE: numbers;
 * - DATE: `YYYY-MM-DD`; TIME: `HH:MM:SS[.ffffff]`, TIMETZ with its offset (`10:11:12+02`),
 *   as DuckDB prints them;
 * - TIMESTAMP (any precision) and TIMESTAMPTZ: ISO 8601 in UTC with microseconds,
 *   `2026-01-05T10:30:00.000000Z` (nanoseconds for TIMESTAMP_NS); `infinity` and
 *   `-infinity` as DuckDB prints them;
 * - INTERVAL: `{months, days, micros}`; BLOB, BIT: base64; UUID, ENUM, VARCHAR: strings;
 * - LIST, ARRAY, STRUCT, MAP, UNION: the same rule inside (a MAP as `[{key, value}]`).
 */
import { createRequire } from "node:module";
import type * as DuckDB from "@duckdb/node-api";
import type { DuckDBResultReader, DuckDBValueConverter, JS } from "@duckdb/node-api";

/** `units` since the epoch (`perSecond` to a second) as ISO 8601 UTC with `digits` fraction digits (pure). */
export function isoUtc(units: bigint, perSecond: bigint, digits: number): string {
  let seconds = units / perSecond;
  let frac = units % perSecond;
  if (frac < 0n) {
    seconds -= 1n;
    frac += perSecond;
  }
  const base = new Date(Number(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, "");
  const fraction = ((frac * 10n ** BigInt(digits)) / perSecond).toString().padStart(digits, "0");
  return `${base}.${fraction}Z`;
}

/** An integer as a JSON number, or its decimal string beyond 2^53. */
function integer(value: bigint): number | string {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value.toString();
}

/** How DECIMAL values come out: `exact` digits as a string, or a `number` when one holds them exactly. */
export type DecimalStyle = "exact" | "number";

/** Most significant digits a JSON number (a double) carries so that it prints back as the same decimal. */
const EXACT_DIGITS = 15;

/** A DECIMAL printed by DuckDB (`-0012.50` style digits) as a number when it has at most 15 significant digits (pure). */
export function decimalNumber(printed: string): number | string {
  const digits = printed.replace(/^-/, "").replace(".", "").replace(/^0+/, "");
  return digits.replace(/0+$/, "").length <= EXACT_DIGITS ? Number(printed) : printed;
}

const converters = new Map<DecimalStyle, DuckDBValueConverter<unknown>>();

/**
 * The rule as a DuckDB value converter, built from the bindings on first use (a static value
 * import would load DuckDB in every process that imports this module; a session has loaded it
 * by the time results are converted).
 */
function jsonConverter(decimals: DecimalStyle): DuckDBValueConverter<unknown> {
  const kept = converters.get(decimals);
  if (kept) return kept;
  const { DuckDBTypeId: T, JSDuckDBValueConverter } = createRequire(import.meta.url)(
    "@duckdb/node-api",
  ) as typeof DuckDB;
  const timestamp = (value: { isFinite: boolean }, units: bigint, perSecond: bigint, digits: number) =>
    value.isFinite ? isoUtc(units, perSecond, digits) : String(value);
  const printed = new Set<number>([T.DECIMAL, T.DATE, T.TIME, T.TIME_NS, T.TIME_TZ]);
  const convert: DuckDBValueConverter<unknown> = (value, type, self) => {
    if (value === null || value === undefined) return null;
    if (type.typeId === T.DECIMAL && decimals === "number") return decimalNumber(String(value));
    if (printed.has(type.typeId)) return String(value);
    switch (type.typeId) {
      case T.TIMESTAMP:
      case T.TIMESTAMP_TZ: {
        const v = value as DuckDB.DuckDBTimestampValue;
        return timestamp(v, v.micros, 1_000_000n, 6);
      }
      case T.TIMESTAMP_S: {
        const v = value as DuckDB.DuckDBTimestampSecondsValue;
        return timestamp(v, v.seconds, 1n, 6);
      }
      case T.TIMESTAMP_MS: {
        const v = value as DuckDB.DuckDBTimestampMillisecondsValue;
        return timestamp(v, v.millis, 1000n, 6);
      }
      case T.TIMESTAMP_NS: {
        const v = value as DuckDB.DuckDBTimestampNanosecondsValue;
        return timestamp(v, v.nanos, 1_000_000_000n, 9);
      }
    }
    const js: JS = JSDuckDBValueConverter(value, type, self as DuckDBValueConverter<JS>);
    if (typeof js === "bigint") return integer(js);
    if (js instanceof Uint8Array) return Buffer.from(js).toString("base64");
    if (type.typeId === T.INTERVAL && js && typeof js === "object") {
      const i = js as { months: number; days: number; micros: bigint };
      return { months: i.months, days: i.days, micros: integer(i.micros) };
    }
    return js;
  };
  converters.set(decimals, convert);
  return convert;
}

/**
 * The rows of a fully read result as JSON objects (at most `limit`), by the module's rule;
 * DECIMALs as exact strings unless `decimals` is `number` (values handed to code).
 */
export function jsonRows(
  reader: DuckDBResultReader,
  limit = Number.POSITIVE_INFINITY,
  decimals: DecimalStyle = "exact",
): Record<string, unknown>[] {
  const rows = reader.convertRowObjects(jsonConverter(decimals)) as Record<string, unknown>[];
  return limit < rows.length ? rows.slice(0, limit) : rows;
}
