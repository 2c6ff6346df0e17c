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
 * Checks a payload object against `spec`: every key must name a parameter and every
 * required parameter must be present. Arrays (positional arguments), null and
 * non-objects are not checked here.
 * @throws InvalidArgumentsError naming the workflow, the bad keys and the parameters
 */
export function checkArguments(workflow: string, spec: ParamSpec, payload: unknown): void {
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) return;
  const keys = Object.keys(payload);
  const takes = spec.names.length ? `its parameters are ${spec.names.join(", ")}` : "it takes no parameters";
  const unknown = keys.filter((k) => !spec.names.includes(k));
  if (unknown.length) {
    throw new InvalidArgumentsError(
      `unknown parameter${unknown.length > 1 ? "s" : ""} ${quoted(unknown)} for ${workflow}: ${takes}`,
    );
  }
  const missing = spec.required.filter(
    (n) => !keys.includes(n) || (payload as Record<string, unknown>)[n] === undefined,
  );
  if (missing.length) {
    throw new InvalidArgumentsError(
      `missing parameter${missing.length > 1 ? "s" : ""} ${quoted(missing)} for ${workflow}: ${takes} (required: ${spec.required.join(", ")})`,
    );
  }
}
