/**
 * DuckDB script arguments, declared as `-- $name (type)` or `-- $name (type) = default`
 * comment lines (Windmill's syntax), coerced from the run's JSON arguments and bound as
 * parameters (`$name` in the SQL); values are never spliced into the text.
 */
import { PipelineRuntimeError } from "../errors.js";

/** One declared argument. */
export interface SqlArgument {
  readonly name: string;
  /** The declared type, lower-case (`text`, `bigint`, `date`, `s3object`, …). */
  readonly type: string;
  /** The default, as written (JSON or a bare word). */
  readonly defaultText?: string;
  readonly line: number;
}

const DECL = /^\s*--\s*\$([A-Za-z_]\w*)\s*\(\s*([A-Za-z_][\w ]*(?:\[\])?)\s*\)\s*(?:=\s*(.+?))?\s*$/;

/** The `-- $name (type)` declarations of a script, in order (first declaration of a name wins). */
export function parseSqlArguments(source: string): SqlArgument[] {
  const out: SqlArgument[] = [];
  source.split("\n").forEach((line, i) => {
    const m = DECL.exec(line);
    if (m && !out.some((a) => a.name === m[1]))
      out.push({
        name: m[1]!,
        type: m[2]!.trim().toLowerCase(),
        ...(m[3] !== undefined && { defaultText: m[3] }),
        line: i + 1,
      });
  });
  return out;
}

function bad(arg: SqlArgument, value: unknown, expected: string): PipelineRuntimeError {
  return new PipelineRuntimeError(
    "SQL_ARGUMENT_INVALID",
    `argument $${arg.name} (${arg.type}, line ${arg.line}) must be ${expected}, got ${JSON.stringify(value)}`,
  );
}

function parseDefault(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text.replace(/^'(.*)'$/, "$1");
  }
}

/** The S3 key of an `s3object` argument (`{ "s3": "k" }`, `"s3://k"` or `"k"`). */
function s3ObjectKey(arg: SqlArgument, value: unknown): string {
  const raw = typeof value === "string" ? value : (value as { s3?: unknown } | null)?.s3;
  if (typeof raw !== "string" || raw === "") throw bad(arg, value, 'an S3 object such as {"s3": "demo/raw.json"}');
  return raw.replace(/^s3:\/\//, "").replace(/^\/+/, "");
}

const DATE = String.raw`\d{4}-\d{2}-\d{2}`;
const CLOCK = String.raw`\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?`;
const OFFSET = String.raw`(?:\s*(?:Z|[+-]\d{2}(?::?\d{2})?))?`;
const SPECIAL = "infinity|-infinity|epoch";
// Named zones need DuckDB's ICU extension, which is not installed: only UTC is read without it.
const ZONE = String.raw`(?:\s*UTC)?`;

/** What DuckDB reads as each date or time type, written as a user would: ISO text. */
function temporalShape(type: string): RegExp | undefined {
  if (type === "date") return new RegExp(`^(?:${DATE}|${SPECIAL})$`, "i");
  if (type === "time") return new RegExp(`^${CLOCK}$`);
  if (/^(timestamp|datetime|timestamptz|timestamp with time zone)$/.test(type))
    return new RegExp(`^(?:${DATE}(?:[T ]${CLOCK}${OFFSET}${ZONE})?|${SPECIAL})$`, "i");
  return undefined;
}

const TEMPORAL_EXPECTED: Record<string, string> = {
  date: "a date such as 2026-05-16",
  time: "a time such as 09:30:00",
};

/** The month and day of a leading `YYYY-MM-DD` are a real calendar day (2026-02-30 is not). */
function validDatePart(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (!m) return true;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const day = new Date(Date.UTC(y, mo - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === mo - 1 && day.getUTCDate() === d;
}

/**
 * The value of one argument, coerced to its declared type (`null` when absent without a
 * default). `s3object` values are returned as keys; the runner maps them to files.
 * @throws PipelineRuntimeError `SQL_ARGUMENT_INVALID`
 */
export function coerceSqlArgument(arg: SqlArgument, given: unknown): unknown {
  const value = given === undefined ? (arg.defaultText === undefined ? null : parseDefault(arg.defaultText)) : given;
  if (value === null) return null;
  const t = arg.type.replace(/\[\]$/, "");
  if (arg.type.endsWith("[]")) {
    if (!Array.isArray(value)) throw bad(arg, value, "a list");
    return JSON.stringify(value);
  }
  if (/^(tinyint|smallint|int|integer|bigint|hugeint|int2|int4|int8|long|uinteger|ubigint)$/.test(t)) {
    const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
    if (typeof n !== "number" || !Number.isInteger(n)) throw bad(arg, value, "a whole number");
    return n;
  }
  if (/^(double|float|real|decimal|numeric|float4|float8)/.test(t)) {
    const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
    if (typeof n !== "number" || !Number.isFinite(n)) throw bad(arg, value, "a number");
    return n;
  }
  if (/^(bool|boolean)$/.test(t)) {
    if (typeof value === "boolean") return value;
    if (value === "true" || value === "false") return value === "true";
    throw bad(arg, value, "true or false");
  }
  if (t === "json") return JSON.stringify(value);
  const temporal = temporalShape(t);
  if (temporal) {
    if (typeof value !== "string" || !temporal.test(value.trim()) || !validDatePart(value.trim()))
      throw bad(
        arg,
        value,
        TEMPORAL_EXPECTED[t] ?? "a date and time such as 2026-05-16 09:30:00 (ISO; a zone as Z, +01:00 or UTC)",
      );
    return value.trim();
  }
  if (t === "s3object") return s3ObjectKey(arg, value);
  if (typeof value === "object") throw bad(arg, value, "a string");
  return String(value);
}
