/**
 * What a pipeline run carries besides its arguments. The payload of a pipeline script run
 * is its arguments (mapped to `main`'s parameters by name) plus two reserved keys:
 *
 * - `_sluice`: how the run was started (trigger, cascade depth, chain fire time, upstream
 *   run, debounce/join slot). Set by Sluice; also the native way to turn the cascade off:
 *   `{ "_sluice": { "cascade": false } }`.
 * - `_wmill_skip_asset_dispatch: true`: the seed's way to run a producer without firing
 *   its downstream.
 *
 * `partition` stays an ordinary argument: an explicit one always wins.
 */
import { InvalidInputError } from "../../sdk/errors.js";
import type { ConsumedKind } from "../../triggers/kinds.js";

/** Reserved payload key of Sluice's run metadata. */
const META_KEY = "_sluice";
/** The seed's payload flag that turns the cascade off for one run. */
const WMILL_SKIP_DISPATCH = "_wmill_skip_asset_dispatch";

/** How a pipeline run was started. */
export type RunTrigger =
  | "manual"
  | "cascade"
  | "debounce"
  | "join"
  | "schedule"
  | "webhook"
  | "freshness"
  | "plan"
  /** A message of a consumed trigger (`triggers/`). */
  | ConsumedKind;

/** The upstream write that fired a cascaded run. */
interface Upstream {
  /** Producer run id. */
  readonly run: string;
  /** Producer script path. */
  readonly script: string;
  /** Written URIs that hit this run's inputs. */
  readonly assets: readonly string[];
}

/** Sluice's metadata of one pipeline run. */
export interface RunMeta {
  readonly trigger: RunTrigger;
  /** Cascade hops from the top of the chain (0 for a top run). */
  readonly depth: number;
  /** Whether a successful run dispatches its downstream. */
  readonly cascade: boolean;
  /** Why the cascade is off, when it is. */
  readonly cascadeOffReason?: string;
  /** The chain's fire time (epoch ms): the anchor of time partitions. */
  readonly firedAt?: number;
  readonly upstream?: Upstream;
  /** Debounce or join slot (its key-value key). */
  readonly slot?: string;
  /** Debounce window number. */
  readonly window?: number;
  /** Join generation. */
  readonly generation?: number;
  /** Why a freshness run was started. */
  readonly reason?: string;
  /** The triggering object (a webhook body): the first source of a dynamic partition key. */
  readonly body?: unknown;
}

/** A payload split into arguments and metadata. */
export interface SplitPayload {
  /** The arguments for `main` (an object; positional arrays are kept as they are). */
  readonly args: Record<string, unknown> | unknown[];
  readonly meta: RunMeta;
  /** The explicit `partition` argument, if any. */
  readonly partition?: string;
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/**
 * Split a run payload into `main`'s arguments and Sluice's metadata.
 * @throws InvalidInputError when `_sluice` is not an object or `partition` is not a string or number
 */
export function splitPayload(payload: unknown): SplitPayload {
  if (payload === null || payload === undefined)
    return { args: {}, meta: { trigger: "manual", depth: 0, cascade: true } };
  if (Array.isArray(payload) || typeof payload !== "object")
    return { args: Array.isArray(payload) ? payload : [payload], meta: { trigger: "manual", depth: 0, cascade: true } };
  const { [META_KEY]: rawMeta, [WMILL_SKIP_DISPATCH]: skip, ...args } = payload as Record<string, unknown>;
  if (rawMeta !== undefined && (typeof rawMeta !== "object" || rawMeta === null || Array.isArray(rawMeta))) {
    throw new InvalidInputError(
      `${META_KEY} must be an object such as {"cascade": false}, got ${JSON.stringify(rawMeta)}`,
      { code: "INVALID_PIPELINE_META" },
    );
  }
  const m = (rawMeta ?? {}) as Record<string, unknown>;
  const off =
    skip === true
      ? `${WMILL_SKIP_DISPATCH}: true`
      : m.cascade === false
        ? typeof m.cascadeOffReason === "string"
          ? m.cascadeOffReason
          : `${META_KEY}.cascade: false`
        : undefined;
  const meta: RunMeta = {
    trigger: (typeof m.trigger === "string" ? m.trigger : "manual") as RunTrigger,
    depth: num(m.depth) ?? 0,
    cascade: off === undefined,
    ...(off !== undefined && { cascadeOffReason: off }),
    ...(num(m.firedAt) !== undefined && { firedAt: num(m.firedAt) }),
    ...(m.upstream !== undefined && { upstream: m.upstream as Upstream }),
    ...(typeof m.slot === "string" && { slot: m.slot }),
    ...(num(m.window) !== undefined && { window: num(m.window) }),
    ...(num(m.generation) !== undefined && { generation: num(m.generation) }),
    ...(typeof m.reason === "string" && { reason: m.reason }),
    ...(m.body !== undefined && { body: m.body }),
  };
  const p = args.partition;
  if (p !== undefined && p !== null && typeof p !== "string" && typeof p !== "number") {
    throw new InvalidInputError(`partition must be a string such as "2026-05-16", got ${JSON.stringify(p)}`, {
      code: "INVALID_PARTITION",
    });
  }
  return { args, meta, ...(p !== undefined && p !== null && { partition: String(p) }) };
}

/** Build a payload from arguments and metadata (the inverse of {@link splitPayload}). */
export function buildPayload(
  args: Record<string, unknown>,
  meta: Partial<RunMeta> & { trigger: RunTrigger },
): Record<string, unknown> {
  return { ...args, [META_KEY]: meta };
}
