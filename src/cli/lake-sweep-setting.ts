/**
 * The automatic lake sweep of `sluice dev` and `sluice server` from the environment:
 * `SLUICE_LAKE_SWEEP_EVERY` (how often each lake is swept, default `1h`; `off` turns the sweep
 * off) and `SLUICE_LAKE_SWEEP_OLDER_THAN` (the age of the files removed, for every lake;
 * default each lake's DuckLake option `delete_older_than`, else one day).
 */
import type { LakeSweepOptions } from "../pipeline/runtime/lake-sweeper.js";
import { InvalidInputError } from "../sdk/errors.js";
import { parseDurationOption } from "./options.js";

/** @throws InvalidInputError (`INVALID_DURATION`) naming the variable */
export function lakeSweepSetting(env: Record<string, string | undefined>): false | LakeSweepOptions {
  const every = env.SLUICE_LAKE_SWEEP_EVERY;
  if (every !== undefined && every.trim().toLowerCase() === "off") return false;
  const older = env.SLUICE_LAKE_SWEEP_OLDER_THAN;
  const everyMs = every === undefined ? undefined : parseDurationOption(every, "SLUICE_LAKE_SWEEP_EVERY");
  if (everyMs !== undefined && everyMs <= 0)
    throw new InvalidInputError(
      `SLUICE_LAKE_SWEEP_EVERY "${every}" must be longer than 0 (e.g. 1h), or off to turn the lake sweep off`,
      { code: "INVALID_DURATION" },
    );
  return {
    ...(everyMs !== undefined && { everyMs }),
    ...(older !== undefined && { olderThanMs: parseDurationOption(older, "SLUICE_LAKE_SWEEP_OLDER_THAN") }),
  };
}
