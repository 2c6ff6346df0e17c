/**
 * Validation of concrete partition values before they are substituted into asset paths
 * or injected into a run. Values are opaque strings, but they end up inside paths, so a
 * value that could escape its directory or break a URI is refused.
 */
import { PartitionResolutionError } from "./errors.js";

// eslint-disable-next-line no-control-regex -- matching control characters is the point here
const FORBIDDEN = /[\s\u0000-\u001f\u007f'"`\\{}]/;

/**
 * Why a partition value is unusable, or `undefined` when it is fine.
 * Rules: non-empty, at most 255 characters, no whitespace/control characters, quotes,
 * backslashes or braces, no leading/trailing `/`, no empty, `.` or `..` segments.
 */
export function partitionValueProblem(value: string): string | undefined {
  if (value === "") return "it is empty";
  if (value.length > 255) return "it is longer than 255 characters";
  if (FORBIDDEN.test(value)) return "it contains whitespace, a quote, a backslash or a brace";
  const segments = value.split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) {
    return "it has an empty, `.` or `..` path segment (or a leading/trailing `/`)";
  }
  return undefined;
}

/**
 * Check a partition value and return it unchanged.
 *
 * @throws PartitionResolutionError (`PARTITION_VALUE_INVALID`) when {@link partitionValueProblem} finds a problem.
 */
export function assertPartitionValue(value: string): string {
  const problem = partitionValueProblem(value);
  if (problem !== undefined) {
    throw new PartitionResolutionError(
      "PARTITION_VALUE_INVALID",
      `partition value ${JSON.stringify(value)} cannot be used because ${problem}; pass a value such as "2026-05-16" or "acme"`,
    );
  }
  return value;
}
