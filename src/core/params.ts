/**
 * A workflow's named parameters (workflows as code and scripts: `main(url, limit)`) and
 * the check of a payload against them, made at enqueue (so a typo is refused at once,
 * not found when the run starts) and again when the run calls `main`. Pure.
 */
import { InvalidInputError } from "./errors.js";

/** What is known of a workflow's parameters: their names in order and which must be given. */
export interface ParamSpec {
  names: string[];
  /** Names without a default or `?`; empty when the loader could not tell. */
  required: string[];
}

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
 * required parameter must be given.
 * @throws InvalidArgumentsError naming the workflow, the bad keys and the parameters
 */
export function checkArguments(workflow: string, spec: ParamSpec, payload: unknown): void {
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

/** A payload that is not an object, as it is written, shortened. */
function describe(payload: unknown): string {
  const text = JSON.stringify(payload) ?? String(payload);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
