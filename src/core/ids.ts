import { v7 as uuidv7 } from "uuid";
import { InvalidInputError } from "./errors.js";

/** A run id: caller-chosen (1–255 bytes, no NUL) or a generated time-ordered UUIDv7. */
export type RunId = string & { readonly __brand: "RunId" };

/** Most bytes a run id may have. */
const MAX_RUN_ID_BYTES = 255;

/** A new time-ordered run id. */
export function newRunId(): RunId {
  return uuidv7() as RunId;
}

/**
 * Checks a caller-supplied run id.
 * @throws InvalidInputError when it is empty, longer than 255 bytes, or contains NUL.
 */
export function validateRunId(id: unknown): RunId {
  if (typeof id !== "string")
    throw new InvalidInputError(`run id must be a string, got ${typeof id}`, { code: "INVALID_RUN_ID" });
  const bytes = Buffer.byteLength(id, "utf8");
  if (bytes < 1 || bytes > MAX_RUN_ID_BYTES) {
    throw new InvalidInputError(`run id must be 1–255 bytes, got ${bytes}`, { code: "INVALID_RUN_ID" });
  }
  if (id.includes("\u0000"))
    throw new InvalidInputError("run id must not contain NUL characters", { code: "INVALID_RUN_ID" });
  return id as RunId;
}

const NAME_RE = /^[A-Za-z0-9_][A-Za-z0-9_.:/@+-]*$/;

/**
 * Checks a workflow name: 1–255 characters of letters, digits and `_ . : / @ + -`
 * (Windmill-style paths such as `f/data/etl` are names too).
 */
export function validateWorkflowName(name: unknown): string {
  if (typeof name !== "string" || name.length === 0 || name.length > 255 || !NAME_RE.test(name)) {
    throw new InvalidInputError(
      `invalid workflow name ${JSON.stringify(name)}: use 1–255 letters, digits and _ . : / @ + - (starting with a letter, digit or _)`,
      { code: "INVALID_WORKFLOW_NAME" },
    );
  }
  return name;
}
