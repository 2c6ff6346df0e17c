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
  if (t === "s3object") return s3ObjectKey(arg, value);
  if (typeof value === "object") throw bad(arg, value, "a string");
  return String(value);
}
