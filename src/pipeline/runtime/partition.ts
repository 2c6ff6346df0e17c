/**
 * Resolving the partition of one pipeline run, once, by the seed's precedence: an
 * explicit `partition` argument (a manual run, a backfill, or propagated from upstream),
 * else the chain's fire time for a time scheme, else the payload key for a dynamic one.
 */
import type { RunRecord } from "../../store/types.js";
import { parsePartitionValue } from "../partition-range.js";
import { resolvePartition } from "../partition-resolve.js";
import type { PartitionSpec } from "../partition-spec.js";
import type { RunMeta } from "./meta.js";

/** A run's resolved partition, as checkpointed (`pipeline:partition`). */
export interface ResolvedRunPartition {
  /** The value, absent for an unpartitioned run or one before `start=`. */
  readonly value?: string;
  readonly source: "explicit" | "fire-time" | "payload" | "none" | "before-start";
  readonly warning?: string;
  /** The chain's fire time (epoch ms), carried down the cascade. */
  readonly firedAt: number;
}

/** Triggers whose partition came down the chain from an upstream run. */
const PROPAGATED: ReadonlySet<RunMeta["trigger"]> = new Set(["cascade", "debounce", "join"]);

/** The schedule tick a cron run was started for (epoch ms), if it is one. */
function scheduledAtOf(run: RunRecord): number | undefined {
  if (!run.options) return undefined;
  try {
    const at = Date.parse((JSON.parse(run.options) as { scheduledAt?: string }).scheduledAt ?? "");
    return Number.isFinite(at) ? at : undefined;
  } catch {
    return undefined;
  }
}

/** A run's trigger: a cron run carries no metadata of its own, so it is recognised by its schedule tick. */
export function triggerOf(run: RunRecord, meta: RunMeta): RunMeta["trigger"] {
  return meta.trigger === "manual" && scheduledAtOf(run) !== undefined ? "schedule" : meta.trigger;
}

/** The fire time of a run: the chain's (cascade), the schedule tick (cron), else its creation. */
function fireTimeOf(run: RunRecord, meta: RunMeta): number {
  return meta.firedAt ?? scheduledAtOf(run) ?? run.createdAt;
}

/**
 * Resolve a run's partition.
 * @throws PartitionResolutionError (missing dynamic key, invalid explicit value, a value given to
 * the chain's top that is not one of the scheme's buckets, …): the run fails with it
 */
export function resolveRunPartition(
  spec: PartitionSpec | undefined,
  run: RunRecord,
  meta: RunMeta,
  args: unknown,
  explicit: string | undefined,
): ResolvedRunPartition {
  const firedAt = fireTimeOf(run, meta);
  // A value given to the top of a chain (a manual run, a plan, a backfill, a webhook) must be one
  // of the script's time buckets, as a backfill's ends must; a value propagated down a chain is
  // taken as it is (the seed: never re-resolved), since the chain's top was checked.
  if (explicit !== undefined && spec && spec.kind !== "dynamic" && !PROPAGATED.has(meta.trigger))
    parsePartitionValue(spec, explicit);
  const r = resolvePartition(spec, { explicit, fireTime: firedAt, trigger: meta.body, args });
  if (r.status === "resolved") return { value: r.value, source: r.source, firedAt };
  if (r.status === "before-start") return { source: "before-start", warning: r.warning, firedAt };
  return { source: "none", firedAt };
}
