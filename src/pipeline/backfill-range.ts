/**
 * Typed backfill ranges: a backfill covers the partitions of one scheme. Either a time
 * range (`--from-partition`/`--to-partition`, enumerated in the scheme chosen by `--scheme`
 * or by the first partitioned step) or an explicit list of dynamic keys (`--keys`). Steps
 * of any other scheme are left out, each with the reason, instead of being run with a
 * value of the wrong shape. With `mapCoarser` (`--map-partitions`), coarser time steps
 * downstream of a step of the range (weekly or monthly after daily) are kept instead, each
 * scheme as a stage of the partitions whose windows overlap the range
 * (`partition-mapping.ts`), run after the range's own partitions.
 */
import { annotationHint } from "./language.js";
import { PartitionRangeError } from "./errors.js";
import { describeScheme } from "./lineage-schemes.js";
import { grain, isCoarser, mapTimeRange } from "./partition-mapping.js";
import { enumeratePartitions } from "./partition-range.js";
import { isTimeKind, partitionSchemeKey, type PartitionSpec, type TimePartitionSpec } from "./partition-spec.js";
import { assertPartitionValue } from "./partition-value.js";

/** A planned step and its effective scheme (none when it is not partitioned). */
export interface RangeStep {
  readonly path: string;
  readonly scheme?: PartitionSpec;
  /** Why the step is not loaded, if it is not: it is left out. */
  readonly notLoaded?: string;
  /** Paths of the steps it depends on, transitively (for partition mappings). */
  readonly upstream?: readonly string[];
}

/** What the user asked for. */
export interface RangeRequest {
  readonly fromPartition?: string;
  readonly toPartition?: string;
  /** Dynamic partition keys (`--keys a,b,c`). */
  readonly keys?: readonly string[];
  /** Time kind of the range when the steps have several (`--scheme weekly`). */
  readonly kind?: string;
  /** Map the range onto coarser time schemes of later steps instead of leaving them out. */
  readonly mapCoarser?: boolean;
}

/** Steps of a coarser scheme selected through a partition mapping, with their partitions. */
interface MappedStage {
  readonly scheme: TimePartitionSpec;
  /** Their steps, in plan order. */
  readonly steps: string[];
  /** The partitions of their scheme overlapping the range. */
  readonly partitions: string[];
}

/** A step left out of the backfill, and why. */
interface ExcludedStep {
  readonly step: string;
  readonly reason: string;
}

/** The typed range. */
export interface TypedRange {
  readonly scheme: PartitionSpec;
  readonly partitions: string[];
  /** The steps of the range's scheme, in plan order. */
  readonly steps: string[];
  readonly excluded: ExcludedStep[];
  /** Coarser stages selected by `mapCoarser`, finest first (empty without it). */
  readonly mapped: MappedStage[];
}

function fail(message: string): never {
  throw new PartitionRangeError("PARTITION_RANGE_INVALID", message);
}

function pickScheme(steps: readonly RangeStep[], request: RangeRequest): PartitionSpec {
  if (request.keys !== undefined) {
    const dyn = steps.find((s) => s.scheme?.kind === "dynamic")?.scheme;
    if (!dyn)
      fail(
        `--keys backfills dynamic partitions, but no planned step is \`${annotationHint(
          steps.map((s) => s.path),
          "partitioned dynamic",
        )}\``,
      );
    return dyn;
  }
  const timed = steps.flatMap((s) => (s.scheme && isTimeKind(s.scheme.kind) ? [s.scheme] : []));
  if (request.kind !== undefined) {
    const found = timed.find((s) => s.kind === request.kind);
    if (!found)
      fail(
        `no planned step is partitioned ${request.kind}; the steps' schemes: ${[...new Set(timed.map((s) => s.kind))].join(", ") || "none"}`,
      );
    return found;
  }
  if (timed[0]) return timed[0];
  if (steps.some((s) => s.scheme?.kind === "dynamic"))
    fail("the planned steps have dynamic partitions, which have no range: list the keys with --keys a,b,c");
  fail(
    `none of the planned steps is partitioned (add \`${annotationHint(
      steps.map((s) => s.path),
      "partitioned daily",
    )}\` or another scheme)`,
  );
}

function exclusion(step: RangeStep, scheme: PartitionSpec): string {
  if (step.notLoaded !== undefined) return `not loaded: ${step.notLoaded}`;
  if (!step.scheme) return "not partitioned";
  if (step.scheme.kind === "dynamic") return `partitioned dynamic (key=${step.scheme.key}): backfill it with --keys`;
  return `partitioned ${describeScheme(step.scheme)}, not ${describeScheme(scheme)}`;
}

/**
 * The partitions and steps of a backfill.
 * @throws PartitionRangeError `PARTITION_RANGE_INVALID` (no step of the scheme, missing or
 * conflicting options), and the errors of {@link enumeratePartitions}; PartitionResolutionError for a bad key
 */
export function typedRange(steps: readonly RangeStep[], request: RangeRequest): TypedRange {
  const hasRange = request.fromPartition !== undefined || request.toPartition !== undefined;
  if (request.keys !== undefined && hasRange)
    fail("pass either --keys (dynamic partitions) or --from-partition/--to-partition (a time range), not both");
  if (request.keys === undefined && (request.fromPartition === undefined || request.toPartition === undefined))
    fail("a backfill needs --from-partition and --to-partition (a time range), or --keys a,b,c (dynamic partitions)");
  const scheme = pickScheme(
    steps.filter((s) => s.notLoaded === undefined),
    request,
  );
  const key = partitionSchemeKey(scheme);
  const included: string[] = [];
  const excluded: ExcludedStep[] = [];
  for (const s of steps) {
    if (s.notLoaded === undefined && s.scheme && partitionSchemeKey(s.scheme) === key) included.push(s.path);
    else excluded.push({ step: s.path, reason: exclusion(s, scheme) });
  }
  let partitions: string[];
  if (request.keys !== undefined) {
    partitions = [...new Set(request.keys.map((k) => assertPartitionValue(k.trim())))];
    if (partitions.length === 0) fail("--keys needs at least one key, e.g. --keys acme,globex");
  } else partitions = enumeratePartitions(scheme, request.fromPartition!, request.toPartition!);
  const mapped: MappedStage[] = [];
  if (request.mapCoarser && scheme.kind !== "dynamic" && partitions.length > 0) {
    const from = scheme;
    const inRange = new Set(included);
    const stages = new Map<string, MappedStage>();
    for (const s of steps) {
      const sc = s.scheme;
      const downstream = (s.upstream ?? []).some((u) => inRange.has(u));
      if (!downstream || s.notLoaded !== undefined || !sc || sc.kind === "dynamic" || !isCoarser(from, sc)) continue;
      const k = partitionSchemeKey(sc);
      const stage = stages.get(k) ?? {
        scheme: sc,
        steps: [],
        partitions: mapTimeRange(from, partitions[0]!, partitions[partitions.length - 1]!, sc),
      };
      stage.steps.push(s.path);
      stages.set(k, stage);
    }
    mapped.push(...[...stages.values()].sort((a, b) => grain(a.scheme.kind) - grain(b.scheme.kind)));
  }
  const mappedSteps = new Set(mapped.flatMap((m) => m.steps));
  return {
    scheme,
    partitions,
    steps: included,
    excluded: excluded.filter((e) => !mappedSteps.has(e.step)),
    mapped,
  };
}

/** Split a `--keys a,b,c` value (surrounding whitespace dropped, empty entries refused). */
export function splitKeys(value: string): string[] {
  const keys = value.split(",").map((k) => k.trim());
  if (keys.some((k) => k === ""))
    fail(`--keys ${JSON.stringify(value)} has an empty key; pass comma-separated keys such as acme,globex`);
  return keys;
}
