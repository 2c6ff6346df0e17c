/**
 * Dispatch decisions: what the cascade did with each write, and why. Every decision is
 * returned by the producer's `pipeline:dispatch` checkpoint (so `sluice show <run>` lists
 * it) and appended to a project-wide log in the store's key-value records, read by
 * `sluice pipeline status`.
 */
import type { Store } from "../../store/types.js";

/** What happened to one subscriber of one write. */
export type DecisionOutcome =
  /** A run of the subscriber was enqueued. */
  | "dispatched"
  /** The write was counted towards a `trigger all` join that still misses inputs. */
  | "join-pending"
  /** The write completed a `trigger all` join: its run was enqueued. */
  | "join-fired"
  /** The write opened a debounce window: a run was scheduled at its end. */
  | "debounce-scheduled"
  /** The write fell into an open debounce window: it replaces the earlier trigger (last write wins). */
  | "debounced"
  /** Nothing was started; `reason` says why. */
  | "skipped"
  /** The freshness watchdog started a run of a stale script. */
  | "freshness-run";

/** One recorded decision. */
export interface DispatchDecision {
  readonly at: number;
  readonly outcome: DecisionOutcome;
  /** The subscriber (or stale script) path. */
  readonly subscriber: string;
  /** The producer script path and run (absent for watchdog decisions). */
  readonly producer?: string;
  readonly producerRun?: string;
  /** The written asset(s) and the declared input(s) they hit. */
  readonly assets?: readonly string[];
  readonly inputs?: readonly string[];
  readonly partition: string | null;
  /** Cascade depth of the run that would be (or was) started. */
  readonly depth?: number;
  /** The run started or joined, if any. */
  readonly run?: string;
  readonly reason?: string;
}

/** Key prefix of the decision log. */
export const DECISION_PREFIX = "pipeline:log:";
/** How many decisions the log keeps. */
export const DECISION_LOG_LIMIT = 2_000;

let seq = 0;

/** Appends decisions to the log (and now and then trims it to {@link DECISION_LOG_LIMIT}). */
export async function logDecisions(store: Store, decisions: readonly DispatchDecision[]): Promise<void> {
  for (const d of decisions) {
    const key = `${DECISION_PREFIX}${String(d.at).padStart(15, "0")}:${process.pid}:${(seq++).toString(36).padStart(6, "0")}`;
    await store.kvPut(key, JSON.stringify(d));
  }
  if (decisions.length > 0 && seq % 100 < decisions.length) await trimDecisions(store);
}

/** Deletes the oldest decisions beyond the limit. */
export async function trimDecisions(store: Store, limit = DECISION_LOG_LIMIT): Promise<number> {
  const all = await store.kvList(DECISION_PREFIX);
  const extra = all.length - limit;
  if (extra <= 0) return 0;
  for (const row of all.slice(0, extra)) await store.kvDelete(row.key);
  return extra;
}

/** Decisions, newest first, optionally only those about `scripts` (as producer or subscriber). */
export async function readDecisions(
  store: Store,
  options: { scripts?: ReadonlySet<string>; limit?: number } = {},
): Promise<DispatchDecision[]> {
  const rows = await store.kvList(DECISION_PREFIX);
  const out: DispatchDecision[] = [];
  for (let i = rows.length - 1; i >= 0 && out.length < (options.limit ?? 50); i--) {
    const d = JSON.parse(rows[i]!.value) as DispatchDecision;
    if (
      !options.scripts ||
      options.scripts.has(d.subscriber) ||
      (d.producer !== undefined && options.scripts.has(d.producer))
    )
      out.push(d);
  }
  return out;
}
