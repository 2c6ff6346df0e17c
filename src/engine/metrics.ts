/**
 * The engine's in-process metrics: what only this process sees as it happens (group
 * commits, fenced writes, lease losses, retries, how long claims and steps take). Figures
 * the database holds (runs by status, queue depth, approvals waiting) are read at scrape
 * time instead (`Store.metricsSnapshot`, `http/metrics.ts`).
 *
 * Recording is cheap and loads nothing: observations wait in a short list until the
 * metrics are first read (`registry`: a scrape, a lane worker's report to its server) or
 * the list is full, and then go into prom-client's instruments (`metric-instruments.ts`).
 * A cold lane worker so runs its first claim without loading prom-client's ~40 CommonJS
 * modules, and a `sluice worker` that serves no metrics loads them once, late.
 */
import type { Registry } from "prom-client";
import type { Command, CommandResult } from "../store/types.js";
// Loading this module does not load prom-client: MetricInstruments requires it when first made.
import { MetricInstruments } from "./metric-instruments.js";

/** How a claim ended in this process (see `ExecutionResult`), plus `failed-to-start` (unknown workflow or version). */
export type AttemptResult = "completed" | "suspended" | "fenced" | "abandoned" | "failed-to-start";

/** Observations kept before prom-client is loaded; one more loads it and applies them. */
const MAX_PENDING = 1_000;

type Observation = (m: MetricInstruments) => void;

/** Counters and histograms of one engine (see the module comment). */
export class EngineMetrics {
  private instruments: MetricInstruments | null = null;
  private pending: Observation[] = [];

  /** The prom-client registry with everything recorded so far (loads prom-client on first use). */
  get registry(): Registry {
    return this.load().registry;
  }

  private load(): MetricInstruments {
    if (this.instruments) return this.instruments;
    const instruments = new MetricInstruments();
    for (const observe of this.pending) observe(instruments);
    this.pending = [];
    this.instruments = instruments;
    return instruments;
  }

  private record(observe: Observation): void {
    if (this.instruments) return observe(this.instruments);
    this.pending.push(observe);
    if (this.pending.length >= MAX_PENDING) this.load();
  }

  /** Records one group commit: its commands, their answers, and how long the transaction took. */
  commit(commands: readonly Command[], results: readonly CommandResult[], seconds: number): void {
    let counted = 0;
    let fenced = 0;
    let lost = 0;
    const outcomes: string[] = [];
    for (let i = 0; i < commands.length; i++) {
      const command = commands[i]!;
      const result = results[i];
      if (command.verb === "appendLogs") continue;
      counted++;
      if (!result) continue;
      if (!result.ok) {
        if (result.fenced) fenced++;
        continue;
      }
      if (command.verb === "heartbeat" && result.lost?.length) lost += result.lost.length;
      if (command.verb === "complete") outcomes.push(command.outcome.status);
    }
    this.record((m) => {
      if (fenced) m.fenced.inc(fenced);
      if (lost) m.leaseLosses.inc(lost);
      for (const outcome of outcomes) {
        m.outcomes.inc({ outcome });
        if (outcome === "retry") m.retries.inc();
      }
      m.commitBatch.observe(counted);
      m.commitSeconds.observe(seconds);
    });
  }

  /** Records a group commit the database refused. */
  commitFailed(): void {
    this.record((m) => m.commitFailures.inc());
  }

  /** Records the end of a claim executed by this process. */
  attempt(workflow: string, result: AttemptResult, seconds: number): void {
    this.record((m) => m.attemptSeconds.observe({ workflow, result }, seconds));
  }

  /**
   * Records a claim's execution starting: `claimSeconds` after the claim reached this
   * worker, `queueSeconds` after the run became due (time in the queue included).
   */
  started(workflow: string, claimSeconds: number, queueSeconds: number): void {
    this.record((m) => {
      m.claimToStart.observe({ workflow }, claimSeconds);
      m.queueWait.observe({ workflow }, Math.max(0, queueSeconds));
    });
  }

  /**
   * Records a run claimed by an external worker through this server (the worker protocol):
   * `queueSeconds` from the run becoming due to its claim. The server does not see the
   * worker start it, so claim-to-start is not observed.
   */
  claimedExternally(workflow: string, queueSeconds: number): void {
    this.record((m) => m.queueWait.observe({ workflow }, Math.max(0, queueSeconds)));
  }

  /** Records an expired lease this process ended: `retry` (another attempt queued) or `failed` (it was the last). */
  reclaimed(workflow: string, outcome: "retry" | "failed"): void {
    this.record((m) => m.reclaimed.inc({ workflow, outcome }));
  }

  /** Records a cancel request handled here, by the run's status afterwards. */
  cancelled(status: string): void {
    this.record((m) => m.cancels.inc({ status }));
  }

  /** Records a run's final outcome written by this process, `seconds` after it was enqueued. */
  finished(workflow: string, status: "succeeded" | "failed" | "cancelled", seconds: number): void {
    this.record((m) => m.endToEnd.observe({ workflow, status }, Math.max(0, seconds)));
  }

  /** Records pipeline dispatch decisions by kind (`DECISION_OUTCOMES` of `pipeline/decision-outcomes.ts`). */
  decided(decisions: ReadonlyArray<{ outcome: string }>): void {
    const kinds = decisions.map((d) => d.outcome);
    this.record((m) => {
      for (const kind of kinds) m.decisions.inc({ kind });
    });
  }

  /** Records a step body that ended: checkpointed (`done`) or given up (`error`). */
  step(workflow: string, outcome: "done" | "error", seconds: number): void {
    this.record((m) => m.stepSeconds.observe({ workflow, outcome }, seconds));
  }
}
