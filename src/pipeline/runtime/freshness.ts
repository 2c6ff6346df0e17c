/**
 * The freshness watchdog (`// freshness <duration>`): a backstop, not a schedule. If no run
 * of a script has succeeded within its window (counted from its last success, or from
 * when the watchdog first saw it), the watchdog starts one and records why; any
 * successful run resets the window. One process leads it at a time (the store's
 * leadership `pipeline-freshness`); a window gets at most one watchdog run. The same
 * tick deletes old idle join and debounce slots (`prune.ts`).
 */
import type { Store } from "../../store/types.js";
import type { MemberScript, PipelineCatalog } from "./catalog.js";
import { type DispatchDecision, logDecisions } from "./decisions.js";
import { dispatchRunId } from "./ids.js";
import { buildPayload } from "./meta.js";
import { pruneSlots } from "./prune.js";

/** Name of the store leadership the watchdog runs under. */
const FRESHNESS_LEADERSHIP = "pipeline-freshness";
const SEEN_PREFIX = "pipeline:fresh-seen:";

/** What the watchdog needs from the host. */
export interface FreshnessHost {
  readonly store: Store;
  catalog(): PipelineCatalog;
  readonly enqueue: (
    workflow: string,
    payload: unknown,
    options: { id: string },
  ) => Promise<{ id: string; deduplicated: boolean }>;
  /** Counts the watchdog's decisions in the process's metrics. */
  recordDecisions?(decisions: readonly DispatchDecision[]): void;
}

/** A script's freshness at one moment. */
export interface FreshnessState {
  readonly script: string;
  readonly windowSeconds: number;
  /** Last successful finish (epoch ms), if any. */
  readonly lastSuccess: number | null;
  /** When the window started counting (last success, else first seen). */
  readonly since: number;
  /** When the window expires or expired (`since` + window): a stale script is stale since then. */
  readonly expiresAt: number;
  readonly stale: boolean;
  /** A run of the script is pending, running or waiting. */
  readonly active: boolean;
}

/** Freshness of one member script now. */
export async function freshnessOf(
  store: Store,
  m: MemberScript,
  now: number,
  markSeen: boolean,
): Promise<FreshnessState | undefined> {
  const window = m.analyzed.annotations.freshness?.duration.seconds;
  if (window === undefined) return undefined;
  const [last] = await store.listRuns({ workflow: m.name, status: "succeeded", limit: 1 });
  const active = (await store.countRuns({ workflow: m.name, status: ["pending", "running", "waiting"] })) > 0;
  let seen = Number(await store.kvGet(SEEN_PREFIX + m.name));
  if (!seen) {
    seen = now;
    if (markSeen) await store.kvSwap(SEEN_PREFIX + m.name, null, String(now));
  }
  const lastSuccess = last ? (last.finishedAt ?? last.updatedAt) : null;
  const since = lastSuccess ?? seen;
  const expiresAt = since + window * 1000;
  return { script: m.path, windowSeconds: window, lastSuccess, since, expiresAt, stale: now > expiresAt, active };
}

/** Runs the watchdog on a timer under the store's leadership. */
export class FreshnessWatchdog {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private readonly holder = `freshness:${process.pid}:${Math.random().toString(36).slice(2, 10)}`;
  private leading = false;

  constructor(
    private readonly host: FreshnessHost,
    private readonly tickMs: number,
  ) {}

  /** Starts ticking. */
  start(): void {
    this.timer = setInterval(() => void this.tick(), this.tickMs);
    this.timer.unref();
    void this.tick();
  }

  /** Stops ticking and gives up the leadership. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    if (this.leading) await this.host.store.resign(FRESHNESS_LEADERSHIP, this.holder).catch(() => {});
  }

  /** One pass (safe to call concurrently); returns the decisions it took. */
  tick(now = Date.now()): Promise<void> {
    this.ticking ??= this.check(now)
      .then(() => undefined)
      .finally(() => (this.ticking = null));
    return this.ticking;
  }

  /** Checks every member with `// freshness` and starts runs for stale ones. */
  async check(now = Date.now()): Promise<DispatchDecision[]> {
    const decisions: DispatchDecision[] = [];
    try {
      // A database that cannot answer: not leading, and nothing to say until it answers (the scheduler says it).
      this.leading = await this.host.store
        .lead(FRESHNESS_LEADERSHIP, this.holder, Math.max(5_000, 3 * this.tickMs))
        .catch(() => false);
      if (!this.leading) return decisions;
      for (const folder of this.host.catalog().folders()) {
        for (const m of folder.members) {
          if (folder.broken.has(m.path)) continue;
          const state = await freshnessOf(this.host.store, m, now, true);
          if (!state || !state.stale || state.active) continue;
          const ageS = Math.round((now - state.since) / 1000);
          const reason =
            state.lastSuccess === null
              ? `no successful run within its freshness window of ${state.windowSeconds}s (watching since ${new Date(state.since).toISOString()})`
              : `last successful run finished ${ageS}s ago, over its freshness window of ${state.windowSeconds}s`;
          const id = dispatchRunId("f", m.name, Math.floor(now / (state.windowSeconds * 1000)));
          const r = await this.host.enqueue(
            m.name,
            buildPayload({}, { trigger: "freshness", depth: 0, cascade: true, reason }),
            { id },
          );
          if (!r.deduplicated)
            decisions.push({
              at: now,
              outcome: "freshness-run",
              subscriber: m.path,
              partition: null,
              depth: 0,
              run: r.id,
              reason,
            });
        }
      }
      await logDecisions(this.host.store, decisions);
      this.host.recordDecisions?.(decisions);
      await pruneSlots(this.host.store, now);
    } catch (err) {
      console.error(`sluice pipelines: freshness watchdog: ${(err as Error).message}`);
    }
    return decisions;
  }
}
