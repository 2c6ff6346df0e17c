/**
 * Partition schemes: the five kinds of `// partitioned`, their defaults and validation.
 * Time kinds (`daily`, `hourly`, `weekly`, `monthly`) take `tz=`, `format=`, `start=`;
 * `dynamic` requires `key=`.
 */
import { DateTime, IANAZone } from "luxon";
import { PartitionConfigError } from "./errors.js";
import { parseKeyPath } from "./key-path.js";
import { partitionValueProblem } from "./partition-value.js";
import { compileStrftime, type FormatField } from "./strftime.js";

/** Partition kinds bucketed by time. */
export type TimePartitionKind = "daily" | "hourly" | "weekly" | "monthly";
/** All partition kinds. */
export type PartitionKind = TimePartitionKind | "dynamic";

/** Every partition kind, in the seed's order. */
export const PARTITION_KINDS: readonly PartitionKind[] = ["daily", "hourly", "weekly", "monthly", "dynamic"];

/** The default strftime format of each time kind (weekly is ISO week-year/week). */
export const DEFAULT_FORMATS: Readonly<Record<TimePartitionKind, string>> = {
  daily: "%Y-%m-%d",
  hourly: "%Y-%m-%dT%H",
  weekly: "%G-W%V",
  monthly: "%Y-%m",
};

/** A time-bucketed partition scheme with its defaults applied. */
export interface TimePartitionSpec {
  readonly kind: TimePartitionKind;
  /** IANA time zone the buckets are resolved in (default `UTC`). */
  readonly tz: string;
  /** strftime pattern of the rendered value (default per kind). */
  readonly format: string;
  /** Backfill anchor `YYYY-MM-DD` in `tz`: buckets entirely before it resolve to no partition. */
  readonly start?: string;
}

/** A payload-keyed partition scheme. */
interface DynamicPartitionSpec {
  readonly kind: "dynamic";
  /** `$.a.b` path into the triggering payload. */
  readonly key: string;
}

/** A validated partition scheme. */
export type PartitionSpec = TimePartitionSpec | DynamicPartitionSpec;

/** Raw options as written on the `// partitioned` line. */
export interface PartitionOptions {
  readonly tz?: string;
  readonly format?: string;
  readonly start?: string;
  readonly key?: string;
}

/** True for `daily`, `hourly`, `weekly`, `monthly`. */
export function isTimeKind(kind: string): kind is TimePartitionKind {
  return kind === "daily" || kind === "hourly" || kind === "weekly" || kind === "monthly";
}

/** True for a supported kind keyword. */
export function isPartitionKind(kind: string): kind is PartitionKind {
  return isTimeKind(kind) || kind === "dynamic";
}

/**
 * Validate options and build a scheme with defaults applied. Options that do not apply to
 * the kind (`key=` on a time kind; `tz=`/`format=`/`start=` on `dynamic`) are ignored here;
 * the annotation parser reports them as warnings.
 *
 * @throws PartitionConfigError `PARTITION_TZ_INVALID`, `PARTITION_START_INVALID`,
 * `PARTITION_FORMAT_INVALID`, `PARTITION_KEY_REQUIRED` or `PARTITION_KEY_INVALID`.
 */
export function createPartitionSpec(kind: PartitionKind, options: PartitionOptions = {}): PartitionSpec {
  if (kind === "dynamic") {
    if (options.key === undefined || options.key === "") {
      throw new PartitionConfigError(
        "PARTITION_KEY_REQUIRED",
        'dynamic partitions need key="$.<field>" naming where the value is in the triggering payload, e.g. key="$.tenant_id"',
      );
    }
    parseKeyPath(options.key);
    return { kind, key: options.key };
  }
  const tz = options.tz ?? "UTC";
  if (!IANAZone.isValidZone(tz)) {
    throw new PartitionConfigError(
      "PARTITION_TZ_INVALID",
      `tz=${JSON.stringify(tz)} is not a valid IANA time zone; use a name like "UTC", "Europe/Paris" or "America/New_York"`,
    );
  }
  const format = options.format ?? DEFAULT_FORMATS[kind];
  checkFormat(format, tz);
  if (options.start !== undefined) {
    const ok =
      /^\d{4}-\d{2}-\d{2}$/.test(options.start) &&
      DateTime.fromFormat(options.start, "yyyy-MM-dd", { zone: tz }).isValid;
    if (!ok) {
      throw new PartitionConfigError(
        "PARTITION_START_INVALID",
        `start=${JSON.stringify(options.start)} is not a valid date; write it as YYYY-MM-DD, e.g. start="2026-01-01"`,
      );
    }
    return { kind, tz, format, start: options.start };
  }
  return { kind, tz, format };
}

/** Compile a format and make sure what it renders can live inside an asset path. */
function checkFormat(format: string, tz: string): void {
  const compiled = compileStrftime(format);
  const sample = compiled.render(DateTime.fromISO("2026-01-05T03:04:05", { zone: tz }));
  const problem = partitionValueProblem(sample);
  if (problem !== undefined) {
    throw new PartitionConfigError(
      "PARTITION_FORMAT_INVALID",
      `format ${JSON.stringify(format)} renders values like ${JSON.stringify(sample)}, which cannot be used in an asset path because ${problem}; use a pattern like "%Y/%m/%d"`,
    );
  }
}

const has = (f: ReadonlySet<FormatField>, ...names: FormatField[]): boolean => names.every((n) => f.has(n));

function identifiesDay(f: ReadonlySet<FormatField>): boolean {
  return has(f, "year", "month", "day") || has(f, "year", "dayOfYear");
}

function identifiesBucket(kind: TimePartitionKind, f: ReadonlySet<FormatField>): boolean {
  switch (kind) {
    case "monthly":
      return has(f, "year", "month") || identifiesDay(f);
    case "weekly":
      return has(f, "isoYear", "isoWeek") || has(f, "year", "isoWeek") || identifiesDay(f);
    case "daily":
      return identifiesDay(f);
    case "hourly":
      return identifiesDay(f) && (f.has("hour") || has(f, "hour12", "ampm"));
  }
}

/**
 * Advice about a time scheme's format that does not make it invalid: a format that cannot
 * tell two buckets apart (e.g. `daily` with `%Y-%m`), or `%Y` with `%V` (wrong year around
 * 1 January; use `%G`). Empty for dynamic schemes and sound formats.
 */
export function formatAdvice(spec: PartitionSpec): string[] {
  if (spec.kind === "dynamic") return [];
  const fields = compileStrftime(spec.format).fields;
  const advice: string[] = [];
  if (!identifiesBucket(spec.kind, fields)) {
    advice.push(
      `format ${JSON.stringify(spec.format)} cannot tell two ${spec.kind} partitions apart, so they would overwrite each other; include every field of the bucket (default ${DEFAULT_FORMATS[spec.kind]})`,
    );
  }
  if (fields.has("isoWeek") && fields.has("year") && !fields.has("isoYear")) {
    advice.push(
      `format ${JSON.stringify(spec.format)} pairs %Y with the ISO week %V, which mislabels weeks around 1 January; use %G (ISO week-year) with %V`,
    );
  }
  return advice;
}

/**
 * The identity of a scheme for join compatibility: two partition-bearing inputs of a
 * `// trigger all` step must have the same key. Time schemes compare kind, zone and format;
 * all dynamic schemes compare equal (their values are opaque payload strings).
 */
export function partitionSchemeKey(spec: PartitionSpec): string {
  return spec.kind === "dynamic" ? "dynamic" : `${spec.kind} tz=${spec.tz} format=${spec.format}`;
}
