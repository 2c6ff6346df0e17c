/**
 * A workflow's named parameters (workflows as code and scripts: `main(url, limit)`) and
 * the check of a payload against them, made at enqueue (so a typo is refused at once,
 * not found when the run starts) and again when the run calls `main`. Pure.
 */
import { InvalidInputError } from "./errors.js";

/** A kind of JSON value (`integer` is a whole `number`). */
export type JsonKind = "integer" | "number" | "string" | "boolean" | "array" | "object" | "null";

/** The JSON values a parameter takes, from its type hint as written (`int` → `["integer"]`). */
export interface ParamType {
  hint: string;
  json: JsonKind[];
}

/** What is known of a workflow's parameters: their names in order and which must be given. */
export interface ParamSpec {
  names: string[];
  /** Names without a default or `?`; empty when the loader could not tell. */
  required: string[];
  /** The JSON values a parameter takes, by name, where its type hint says (Python's); others are not checked. */
  types?: Record<string, ParamType>;
  /**
   * Only the types of the arguments given are checked, not their names: an argument that names no
   * parameter is accepted (the runner drops it), as are more positions than parameters, and a
   * required one may be missing. A pipeline script's (`pipeline/runtime/script-params.ts`).
   */
  open?: boolean;
}

const JSON_KINDS: readonly JsonKind[] = ["integer", "number", "string", "boolean", "array", "object", "null"];

/** A payload does not fit a workflow's parameters. */
export class InvalidArgumentsError extends InvalidInputError {
  constructor(message: string) {
    super(message, { code: "INVALID_ARGUMENTS" });
  }
}

const quoted = (names: string[]) => names.map((n) => JSON.stringify(n)).join(", ");

/**
 * Checks a payload against `spec` as the run will map it onto the parameters. An object names
 * the arguments: every key must name a parameter. An array gives them by position (as a
 * `task(fn)(a, b)` child's payload does), and any other JSON value (a string, a number) is the
 * first argument alone: no more arguments than parameters. `null` gives none. Either way every
 * required parameter must be given, and each argument given must be of its parameter's type
 * where `spec.types` knows it. An {@link ParamSpec.open} spec checks the types alone.
 * @throws InvalidArgumentsError naming the workflow, the bad keys and the parameters
 */
export function checkArguments(workflow: string, spec: ParamSpec, payload: unknown): void {
  if (!spec.open) checkNames(workflow, spec, payload);
  if (spec.types) checkTypes(workflow, spec, payload);
}

/** The names part of {@link checkArguments}: unknown, too many and missing arguments. */
function checkNames(workflow: string, spec: ParamSpec, payload: unknown): void {
  const takes = spec.names.length ? `its parameters are ${spec.names.join(", ")}` : "it takes no parameters";
  let given: (name: string) => boolean;
  if (payload !== null && typeof payload === "object" && !Array.isArray(payload)) {
    const keys = Object.keys(payload);
    const unknown = keys.filter((k) => !spec.names.includes(k));
    if (unknown.length) {
      throw new InvalidArgumentsError(
        `unknown parameter${unknown.length > 1 ? "s" : ""} ${quoted(unknown)} for ${workflow}: ${takes}`,
      );
    }
    given = (n) => keys.includes(n) && (payload as Record<string, unknown>)[n] !== undefined;
  } else {
    const count = payload === null || payload === undefined ? 0 : Array.isArray(payload) ? payload.length : 1;
    if (count > spec.names.length) {
      const what = Array.isArray(payload)
        ? `${count} given by position`
        : `the payload ${describe(payload)} is its first`;
      throw new InvalidArgumentsError(`too many arguments for ${workflow}: ${what}, ${takes}`);
    }
    given = (n) => spec.names.indexOf(n) < count;
  }
  const missing = spec.required.filter((n) => !given(n));
  if (missing.length) {
    throw new InvalidArgumentsError(
      `missing parameter${missing.length > 1 ? "s" : ""} ${quoted(missing)} for ${workflow}: ${takes} (required: ${spec.required.join(", ")})`,
    );
  }
}

/** The arguments of a payload by parameter name (positions past the parameters, which an open spec lets by, left out). */
function argumentsOf(spec: ParamSpec, payload: unknown): Array<[string, unknown]> {
  if (payload === null || payload === undefined) return [];
  if (Array.isArray(payload))
    return payload.slice(0, spec.names.length).map((v, i): [string, unknown] => [spec.names[i]!, v]);
  if (typeof payload === "object") return Object.entries(payload as Record<string, unknown>);
  return spec.names.length ? [[spec.names[0]!, payload]] : [];
}

function kindOf(value: unknown): JsonKind {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value as JsonKind;
}

const A: Record<JsonKind, string> = {
  integer: "a whole number",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  array: "an array",
  object: "an object",
  null: "null",
};

function checkTypes(workflow: string, spec: ParamSpec, payload: unknown): void {
  for (const [name, value] of argumentsOf(spec, payload)) {
    // Own entries only: an open spec lets any key through ("toString", "constructor").
    const type = Object.hasOwn(spec.types!, name) ? spec.types![name] : undefined;
    if (!type || value === undefined) continue;
    // null for a parameter with a default: Python's `None`, which a default often is.
    if (value === null && !spec.required.includes(name)) continue;
    const kind = kindOf(value);
    if (type.json.includes(kind) || (kind === "integer" && type.json.includes("number"))) continue;
    throw new InvalidArgumentsError(
      `parameter ${JSON.stringify(name)} of ${workflow} is ${type.hint}, so it takes ${type.json.map((k) => A[k]).join(" or ")}: got ${describe(value)} (${A[kind]})`,
    );
  }
}

/**
 * A parameter list as stored (JSON text): anything unreadable is treated as unknown (no check),
 * never as an error; a `types` entry that is unreadable is left out.
 */
export function parseParamSpec(text: string | null): ParamSpec | null {
  if (text === null) return null;
  let v: Partial<ParamSpec> | null;
  try {
    v = JSON.parse(text) as Partial<ParamSpec> | null;
  } catch {
    return null;
  }
  const strings = (x: unknown): x is string[] => Array.isArray(x) && x.every((n) => typeof n === "string");
  if (!v || !strings(v.names) || !strings(v.required)) return null;
  const spec: ParamSpec = { names: v.names, required: v.required, ...(v.open === true && { open: true }) };
  const types = Object.entries(v.types && typeof v.types === "object" ? v.types : {}).filter(
    ([, t]) =>
      t !== null &&
      typeof t === "object" &&
      typeof t.hint === "string" &&
      Array.isArray(t.json) &&
      t.json.length > 0 &&
      t.json.every((k) => JSON_KINDS.includes(k)),
  );
  if (types.length) spec.types = Object.fromEntries(types);
  return spec;
}

/** A payload that is not an object, as it is written, shortened. */
function describe(payload: unknown): string {
  const text = JSON.stringify(payload) ?? String(payload);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
