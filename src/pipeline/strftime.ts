/**
 * strftime patterns rendered (and parsed back) with luxon. No strftime library is
 * installed, so each supported directive maps to a luxon token (or a tiny function where
 * luxon has no token); the mapping table below is the whole implementation. Time-zone
 * maths is always luxon's: callers pass a `DateTime` already set to the partition's zone.
 *
 * | strftime | luxon | meaning |
 * | --- | --- | --- |
 * | `%Y` `%y` | `yyyy` `yy` | year, 2-digit year |
 * | `%m` `%b`/`%h` `%B` | `MM` `LLL` `LLLL` | month number, abbreviated name, full name |
 * | `%d` `%e` | `dd` / space-padded `d` | day of month |
 * | `%j` | `ooo` | day of year (001–366) |
 * | `%H` `%I` `%p` | `HH` `hh` `a` | hour 00–23, hour 01–12, AM/PM |
 * | `%M` `%S` | `mm` `ss` | minute, second |
 * | `%G` `%g` `%V` | `kkkk` `kk` `WW` | ISO week-year, 2-digit ISO week-year, ISO week 01–53 |
 * | `%u` `%w` `%a` `%A` | `E` / (1–7 mod 7) `ccc` `cccc` | weekday Mon=1…Sun=7, Sun=0…Sat=6, names |
 * | `%F` `%D` `%T` `%R` | `yyyy-MM-dd` `MM/dd/yy` `HH:mm:ss` `HH:mm` | composites |
 * | `%z` `%Z` | `ZZZ` `ZZZZ` | offset `+0500`, zone abbreviation |
 * | `%%` | | a literal `%` |
 */
import { DateTime } from "luxon";
import { PartitionConfigError } from "./errors.js";

/** Calendar fields a pattern carries; used to check that a format identifies a bucket. */
export type FormatField =
  | "year"
  | "month"
  | "day"
  | "dayOfYear"
  | "hour"
  | "hour12"
  | "ampm"
  | "minute"
  | "second"
  | "isoYear"
  | "isoWeek"
  | "weekday";

interface Directive {
  readonly render: (dt: DateTime) => string;
  /** luxon parse token; absent when luxon cannot parse it back. */
  readonly parse?: string;
  readonly fields: readonly FormatField[];
  /** How it reads in a message (`YYYY` for `%Y`). */
  readonly shape: string;
}

/** A directive rendered by one luxon token; `parse` is the luxon parse token, `null` when not parseable. */
const tok = (
  token: string,
  fields: readonly FormatField[],
  shape: string,
  parse: string | null = token,
): Directive => ({
  render: (dt) => dt.setLocale("en-US").toFormat(token),
  fields,
  shape,
  ...(parse === null ? {} : { parse }),
});

const DIRECTIVES: Readonly<Record<string, Directive>> = {
  Y: tok("yyyy", ["year"], "YYYY"),
  y: tok("yy", ["year"], "YY"),
  m: tok("MM", ["month"], "MM"),
  b: tok("LLL", ["month"], "Mon", "MMM"),
  h: tok("LLL", ["month"], "Mon", "MMM"),
  B: tok("LLLL", ["month"], "Month", "MMMM"),
  d: tok("dd", ["day"], "DD"),
  e: { render: (dt) => String(dt.day).padStart(2, " "), fields: ["day"], shape: "DD" },
  j: tok("ooo", ["dayOfYear"], "DDD"),
  H: tok("HH", ["hour"], "HH"),
  I: tok("hh", ["hour12"], "hh"),
  p: tok("a", ["ampm"], "AM"),
  M: tok("mm", ["minute"], "mm"),
  S: tok("ss", ["second"], "ss"),
  G: tok("kkkk", ["isoYear"], "YYYY"),
  g: tok("kk", ["isoYear"], "YY"),
  V: tok("WW", ["isoWeek"], "ww"),
  u: tok("E", ["weekday"], "D"),
  w: { render: (dt) => String(dt.weekday % 7), fields: ["weekday"], shape: "D" },
  a: tok("ccc", ["weekday"], "Ddd", "EEE"),
  A: tok("cccc", ["weekday"], "Dayname", "EEEE"),
  F: tok("yyyy-MM-dd", ["year", "month", "day"], "YYYY-MM-DD"),
  D: tok("MM/dd/yy", ["year", "month", "day"], "MM/DD/YY"),
  T: tok("HH:mm:ss", ["hour", "minute", "second"], "HH:mm:ss"),
  R: tok("HH:mm", ["hour", "minute"], "HH:mm"),
  z: tok("ZZZ", [], "+hhmm", null),
  Z: tok("ZZZZ", [], "Zone", null),
};

/**
 * A strftime pattern as a reader expects it in a message, e.g. `YYYY-MM-DD` for `%Y-%m-%d`,
 * `YYYY-Www` for `%G-W%V`.
 */
export function formatShape(pattern: string): string {
  return pattern.replace(/%(.)/g, (all, d: string) => (d === "%" ? "%" : (DIRECTIVES[d]?.shape ?? all)));
}

/** The supported directives, for messages and docs. */
export const STRFTIME_DIRECTIVES: readonly string[] = [...Object.keys(DIRECTIVES).map((d) => `%${d}`), "%%"];

type Piece = { readonly literal: string } | { readonly directive: Directive };

/** A validated strftime pattern. */
export interface CompiledFormat {
  /** The pattern as written. */
  readonly pattern: string;
  /** The calendar fields it carries. */
  readonly fields: ReadonlySet<FormatField>;
  /** True when values rendered with it can be parsed back. */
  readonly parseable: boolean;
  /** Render a `DateTime` (already in the wanted zone). */
  render(dt: DateTime): string;
  /**
   * Parse a rendered value back to a `DateTime` in `zone`; `undefined` when the text does not
   * match or the pattern is not parseable. Strict: the value must re-render identically.
   */
  parse(text: string, zone: string): DateTime | undefined;
}

function tokenize(pattern: string): Piece[] {
  const pieces: Piece[] = [];
  let literal = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch !== "%") {
      literal += ch;
      continue;
    }
    const name = pattern[i + 1];
    i++;
    if (name === "%") {
      literal += "%";
      continue;
    }
    const directive = name === undefined ? undefined : DIRECTIVES[name];
    if (!directive) {
      const shown = name === undefined ? "a trailing %" : `%${name}`;
      throw new PartitionConfigError(
        "PARTITION_FORMAT_INVALID",
        `format ${JSON.stringify(pattern)} uses ${shown}, which is not supported; use ${STRFTIME_DIRECTIVES.join(" ")} (write %% for a literal %)`,
      );
    }
    if (literal) pieces.push({ literal });
    literal = "";
    pieces.push({ directive });
  }
  if (literal) pieces.push({ literal });
  return pieces;
}

function luxonParsePattern(pieces: readonly Piece[]): string | undefined {
  let out = "";
  for (const piece of pieces) {
    if ("literal" in piece) {
      if (piece.literal.includes("'")) return undefined;
      out += `'${piece.literal}'`;
    } else if (piece.directive.parse === undefined) {
      return undefined;
    } else {
      out += piece.directive.parse;
    }
  }
  return out;
}

/**
 * Compile a strftime pattern.
 *
 * @throws PartitionConfigError (`PARTITION_FORMAT_INVALID`) for an empty pattern or an unsupported directive.
 * @example compileStrftime("%G-W%V").render(DateTime.fromISO("2026-05-16", { zone: "UTC" })) // "2026-W20"
 */
export function compileStrftime(pattern: string): CompiledFormat {
  if (pattern === "") {
    throw new PartitionConfigError(
      "PARTITION_FORMAT_INVALID",
      'format is empty; remove format= to use the default or give a pattern like "%Y/%m/%d"',
    );
  }
  const pieces = tokenize(pattern);
  const fields = new Set<FormatField>();
  for (const p of pieces) if ("directive" in p) for (const f of p.directive.fields) fields.add(f);
  const parsePattern = luxonParsePattern(pieces);
  const render = (dt: DateTime): string =>
    pieces.map((p) => ("literal" in p ? p.literal : p.directive.render(dt))).join("");
  return {
    pattern,
    fields,
    parseable: parsePattern !== undefined,
    render,
    parse(text, zone) {
      if (parsePattern === undefined) return undefined;
      const dt = DateTime.fromFormat(text, parsePattern, { zone, locale: "en-US" });
      return dt.isValid && render(dt) === text ? dt : undefined;
    },
  };
}
