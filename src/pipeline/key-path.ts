/**
 * The minimal `$.a.b.c` dotted path used by `// partitioned dynamic key="…"`: object
 * property access only, no array indexing, wildcards or filters; the leaf must be a
 * string, number or boolean.
 */
import { PartitionConfigError, PartitionResolutionError } from "./errors.js";

const SEGMENT = /^[^.[\]*?()@$'"\s]+$/;

/**
 * Parse `$.a.b.c` into `["a", "b", "c"]`.
 *
 * @throws PartitionConfigError (`PARTITION_KEY_INVALID`) when the path does not start with `$.`,
 * has an empty segment, or uses indexing, wildcards, filters or quotes.
 */
export function parseKeyPath(key: string): readonly string[] {
  const fail = (why: string): never => {
    throw new PartitionConfigError(
      "PARTITION_KEY_INVALID",
      `key=${JSON.stringify(key)} is not a supported path: ${why}; write a dotted path like "$.tenant_id" or "$.customer.id" (no [index], *, or filters)`,
    );
  };
  if (!key.startsWith("$.")) fail("it must start with `$.`");
  const segments = key.slice(2).split(".");
  for (const segment of segments) {
    if (segment === "") fail("it has an empty segment");
    if (!SEGMENT.test(segment)) fail(`segment ${JSON.stringify(segment)} has a character that is not allowed`);
  }
  return segments;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Read the scalar at `path` inside `payload` and render it as a string (numbers in their
 * JavaScript form, booleans as `true`/`false`). Only own properties are followed.
 *
 * @throws PartitionResolutionError `PARTITION_KEY_MISSING` when a segment is absent,
 * `PARTITION_KEY_NOT_SCALAR` when the leaf is an object, array, null or a non-finite number.
 */
export function extractScalar(payload: unknown, path: readonly string[], key: string): string {
  let current: unknown = payload;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i] as string;
    if (!isRecord(current) || !Object.hasOwn(current, segment)) {
      const at = "$." + path.slice(0, i + 1).join(".");
      throw new PartitionResolutionError(
        "PARTITION_KEY_MISSING",
        `partition key ${key} is missing from the triggering payload (nothing at ${at}); send a payload that has it, or run with an explicit partition argument`,
      );
    }
    current = current[segment];
  }
  if (typeof current === "string") return current;
  if (typeof current === "boolean") return String(current);
  if (typeof current === "number" && Number.isFinite(current)) return String(current);
  const shown = current === null ? "null" : Array.isArray(current) ? "an array" : typeof current;
  throw new PartitionResolutionError(
    "PARTITION_KEY_NOT_SCALAR",
    `partition key ${key} points at ${shown}, not a string, number or boolean; point key= at a scalar field`,
  );
}
