/**
 * Dispatch decisions: what the cascade did with each write, and why. Every decision is
 * returned by the producer's `pipeline:dispatch` checkpoint (so `sluice show <run>` lists
 * it) and appended to a project-wide log in the store's key-value records, read by
 * `sluice pipeline status`.
 */
import { InvalidInputError } from "../../sdk/errors.js";
import type { Store } from "../../store/types.js";
import { DECISION_OUTCOMES, type DecisionOutcome } from "../decision-outcomes.js";

export { type DecisionOutcome };

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
const DECISION_PREFIX = "pipeline:log:";
/** How many decisions the log keeps. */
const DECISION_LOG_LIMIT = 2_000;

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
async function trimDecisions(store: Store, limit = DECISION_LOG_LIMIT): Promise<number> {
  const all = await store.kvList(DECISION_PREFIX);
  const extra = all.length - limit;
  if (extra <= 0) return 0;
  for (const row of all.slice(0, extra)) await store.kvDelete(row.key);
  return extra;
}

/** Which decisions {@link readDecisions} returns. */
export interface DecisionFilter {
  /** Only those about these scripts (as producer or subscriber). */
  scripts?: ReadonlySet<string>;
  /** Only these outcomes (kinds). */
  outcomes?: readonly DecisionOutcome[];
  /** Only those of this run: as the producer run or the run started. */
  run?: string;
  limit?: number;
}

/** Whether a decision passes a filter (pure). */
export function decisionMatches(d: DispatchDecision, f: DecisionFilter): boolean {
  if (f.scripts && !f.scripts.has(d.subscriber) && !(d.producer !== undefined && f.scripts.has(d.producer)))
    return false;
  if (f.outcomes && !f.outcomes.includes(d.outcome)) return false;
  if (f.run !== undefined && d.producerRun !== f.run && d.run !== f.run) return false;
  return true;
}

/** Decisions, newest first, that pass the filter. */
export async function readDecisions(store: Store, options: DecisionFilter = {}): Promise<DispatchDecision[]> {
  const rows = await store.kvList(DECISION_PREFIX);
  const out: DispatchDecision[] = [];
  for (let i = rows.length - 1; i >= 0 && out.length < (options.limit ?? 50); i--) {
    const d = JSON.parse(rows[i]!.value) as DispatchDecision;
    if (decisionMatches(d, options)) out.push(d);
  }
  return out;
}

/**
 * Parses a comma-separated list of outcomes (`--decision-kind skipped,dispatched`).
 * @throws InvalidInputError naming the known outcomes
 */
export function parseOutcomes(text: string): DecisionOutcome[] {
  const list = text
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "");
  const bad = list.filter((x) => !(DECISION_OUTCOMES as readonly string[]).includes(x));
  if (bad.length > 0 || list.length === 0)
    throw new InvalidInputError(
      `unknown decision kind ${JSON.stringify(bad[0] ?? text)}; kinds: ${DECISION_OUTCOMES.join(", ")}`,
      { code: "INVALID_DECISION_KIND" },
    );
  return list as DecisionOutcome[];
}
