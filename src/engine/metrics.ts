/**
 * The engine's in-process metrics: what only this process sees as it happens (group
 * commits, fenced writes, lease losses, retries, how long claims and steps take). Figures
 * the database holds (runs by status, queue depth, approvals waiting) are read at scrape
 * time instead (`Store.metricsSnapshot`, `http/metrics.ts`).
 *
 * Recording is cheap and loads nothing: each observation goes into a tally
 * (`metric-tally.ts`), and prom-client is loaded only when the metrics are first read
 * (`registry`: a scrape, a lane worker's report to its server). A cold lane worker so runs
 * its first claims without loading prom-client's ~40 CommonJS modules, and a worker that
 * serves no metrics never loads them.
 */
import type { Registry } from "prom-client";
import type { Command, CommandResult } from "../store/types.js";
// Loading this module does not load prom-client: MetricInstruments requires it when its registry is first read.
import { MetricInstruments } from "./metric-instruments.js";

/** How a claim ended in this process (see `ExecutionResult`), plus `failed-to-start` (unknown workflow or version). */
export type AttemptResult = "completed" | "suspended" | "fenced" | "abandoned" | "failed-to-start";

/** Counters and histograms of one engine (see the module comment). */
export class EngineMetrics {
  private readonly m = new MetricInstruments();

  /** The prom-client registry with everything recorded so far (loads prom-client on first use). */
  get registry(): Registry {
    return this.m.registry;
  }

  /** Records one group commit: its commands, their answers, and how long the transaction took. */
  commit(commands: readonly Command[], results: readonly CommandResult[], seconds: number): void {
    let counted = 0;
    let fenced = 0;
    let lost = 0;
    const m = this.m;
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
      if (command.verb === "complete") {
        const outcome = command.outcome.status;
        m.outcomes.inc({ outcome });
        if (outcome === "retry") m.retries.inc();
      }
    }
    if (fenced) m.fenced.inc(fenced);
    if (lost) m.leaseLosses.inc(lost);
    m.commitBatch.observe(counted);
    m.commitSeconds.observe(seconds);
  }

  /** Records a group commit the database refused. */
  commitFailed(): void {
    this.m.commitFailures.inc();
  }

  /** Records the end of a claim executed by this process. */
  attempt(workflow: string, result: AttemptResult, seconds: number): void {
    this.m.attemptSeconds.observe({ workflow, result }, seconds);
  }

  /**
   * Records a claim's execution starting: `claimSeconds` after the claim reached this
   * worker, `queueSeconds` after the run became due (time in the queue included).
   */
  started(workflow: string, claimSeconds: number, queueSeconds: number): void {
    const labels = { workflow };
    this.m.claimToStart.observe(labels, claimSeconds);
    this.m.queueWait.observe(labels, Math.max(0, queueSeconds));
  }

  /**
   * Records a run claimed by an external worker through this server (the worker protocol):
   * `queueSeconds` from the run becoming due to its claim. The server does not see the
   * worker start it, so claim-to-start is not observed.
   */
  claimedExternally(workflow: string, queueSeconds: number): void {
    this.m.queueWait.observe({ workflow }, Math.max(0, queueSeconds));
  }

  /**
   * Records an expired or released lease this process ended: `retry` (another attempt queued) or
   * `failed` (it was the last); `cause` `expired` (it ran out) or `released` (its worker was known gone).
   */
  reclaimed(workflow: string, outcome: "retry" | "failed", cause: "expired" | "released"): void {
    this.m.reclaimed.inc({ workflow, outcome, cause });
  }

  /** Records a cancel request handled here, by the run's status afterwards. */
  cancelled(status: string): void {
    this.m.cancels.inc({ status });
  }

  /** Records a run's final outcome written by this process, `seconds` after it was enqueued. */
  finished(workflow: string, status: "succeeded" | "failed" | "cancelled", seconds: number): void {
    this.m.endToEnd.observe({ workflow, status }, Math.max(0, seconds));
  }

  /** Records pipeline dispatch decisions by kind (`DECISION_OUTCOMES` of `pipeline/decision-outcomes.ts`). */
  decided(decisions: ReadonlyArray<{ outcome: string }>): void {
    for (const d of decisions) this.m.decisions.inc({ kind: d.outcome });
  }

  /** Records a step body that ended: checkpointed (`done`) or given up (`error`). */
  step(workflow: string, outcome: "done" | "error", seconds: number): void {
    this.m.stepSeconds.observe({ workflow, outcome }, seconds);
  }
}
