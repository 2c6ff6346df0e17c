/** A typed status filter (`--status`, `?status=`) turned into run statuses, or one clear error. */
import { InvalidInputError } from "./errors.js";
import { describeStatusNames, parseStatusList, type RunStatus } from "./run-status.js";

/**
 * Parses `value` (comma-separated statuses or Tako aliases, e.g. `"dead,cancelled"`).
 * @param field how the caller names the input in the error, e.g. `--status`
 * @throws InvalidInputError (`INVALID_STATUS`) naming the unknown status and the accepted ones
 */
export function parseStatusFilter(value: string, field: string): RunStatus[] {
  const parsed = parseStatusList(value);
  if (!parsed.ok) {
    const shown = parsed.unknown === "" ? "(empty)" : JSON.stringify(parsed.unknown);
    throw new InvalidInputError(`unknown status ${shown} for ${field}: use ${describeStatusNames()}, comma-separated`, {
      code: "INVALID_STATUS",
    });
  }
  return parsed.statuses;
}
