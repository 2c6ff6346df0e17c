/**
 * Claiming for external workers: the store's `claim` verb (the one the built-in worker
 * uses), long-polled on a {@link WorkBell}, with expired leases reclaimed on the way
 * (a server started with `--workers none` has no worker of its own that would do it).
 * While a claim waits, runs enqueued through this engine are created already leased to
 * it (see `engine/handoff.ts`): the enqueue and the claim share one commit.
 */
import type { Span } from "@opentelemetry/api";
import { traceCarrierOf } from "../../core/trace-context.js";
import { leaseRetryDelay } from "../../core/backoff.js";
import { reclaimExpiredLeases } from "../../worker/reclaim.js";
import { decodeValue, type SerializedError } from "../../core/serde.js";
import { runTimeoutMs } from "../../core/task-options.js";
import type { Engine } from "../../engine/engine.js";
import { releaseExternalWorker, sweepQuietExternalLeases } from "../../engine/external-leases.js";
import { carrierOf, startAttemptSpan } from "../../worker/tracing.js";
import type { ClaimedRun, StepRecord } from "../../store/types.js";
import type { ClaimMessage } from "./messages.js";
import { WaitingClaims } from "./waiting-claims.js";
import type { WorkBell } from "./work-bell.js";

/** How often waiting claims look for expired leases (ms). */
const RECLAIM_EVERY_MS = 1_000;
/**
 * How often, and after how long without a word from their worker, external claims are checked
 * against the store (`sweepQuietExternalLeases`): longer than the default 30 s lease.
 */
const SWEEP_QUIET_MS = 60_000;

/** A claimed run as sent to a worker: what it needs to run and replay it. */
export interface ClaimView {
  runId: string;
  /** Fencing token: every write for this claim must carry it. */
  token: number;
  workflow: string;
  /** A task child (`task` in a park's children): the function of `workflow` to run; null for a workflow run. */
  task: string | null;
  /** The code version the run is pinned to (registered with its workflow; a task child's is its parent's), or null. */
  version: string | null;
  payload: unknown;
  attempt: number;
  maxAttempts: number;
  /** Store clock at claim time (epoch ms); step `wakeAt` times are on the same clock. */
  claimedAt: number;
  /**
   * When the run became due (store clock, epoch ms: its enqueue or `runAt`, a timer, retry or
   * wake-up coming due, a lease reclaimed); `claimedAt - dueAt` is the time it waited in the queue.
   */
  dueAt: number;
  leaseMs: number;
  /**
   * A task child with a timeout (`timeoutMs`): the store-clock time at which the worker
   * fails it (`TASK_TIMEOUT`), measured from its first start as the built-in engine does.
   */
  deadline?: number;
  /** That task's timeout (ms), with `deadline`. */
  timeoutMs?: number;
  /** The journal: checkpoints of earlier claims, to replay against. */
  steps: JournalEntry[];
  /**
   * The W3C trace context the worker continues: the server's span of this attempt (`run
   * <workflow>`, a child of the context stored with the run at enqueue) when the server
   * records traces, else the stored context; absent when there is neither.
   */
  traceparent?: string;
  /** Its `tracestate`, when there is one. */
  tracestate?: string;
}

/** One checkpoint of the journal. */
interface JournalEntry {
  key: string;
  kind: StepRecord["kind"];
  status: StepRecord["status"];
  value: unknown;
  /** What the key pointed at when written: a child's task or workflow name, else null (non-determinism checks). */
  target: string | null;
  /** A `task` step's child run (or the cached run that answered it), else null. */
  childId: string | null;
  /** A `task` step whose child run failed or was cancelled: the child's serialized error (`name`, `message`, `code`?, …). */
  error: SerializedError | null;
  event: string | null;
  wakeAt: number | null;
  attempts: number;
  position: number;
}

/** Claims for one request, waiting up to `waitMs` for work to appear. */
export class ExternalClaims {
  /** Monotonic time (`performance.now()`) of the last reclaim (a wall clock jumping back must not stop them). */
  private lastReclaim = -Infinity;
  private lastSweep = 0;
  private readonly waiting: WaitingClaims;

  constructor(
    private readonly engine: Engine,
    private readonly bell: WorkBell,
  ) {
    this.waiting = new WaitingClaims(engine.localServer);
    engine.handoff.add(this.waiting);
  }

  /** Claims up to `msg.limit` runs; waits (long-poll) until one is claimable, `waitMs` passes or `signal` aborts. */
  async claim(msg: ClaimMessage, signal?: AbortSignal): Promise<ClaimView[]> {
    const { store } = this.engine;
    this.engine.events.emit("workerPoll", msg.workerId, msg.workflows, msg.groups ?? null);
    // Monotonic: a wall clock jumping back must not stretch the long-poll (nor a jump forward cut it).
    const deadline = performance.now() + msg.waitMs;
    // Writes queued for the group commit go first (a claim costs a store query).
    await new Promise((resolve) => setImmediate(resolve));
    for (;;) {
      if (signal?.aborted) return [];
      await this.reclaim();
      const claimed = await store.claim({
        workerId: msg.workerId,
        limit: msg.limit,
        leaseMs: msg.leaseMs,
        workflows: msg.workflows,
        queues: msg.groups,
        server: this.engine.localServer ?? undefined,
        version: msg.version,
      });
      if (claimed.length > 0) return this.answer(claimed, msg);
      const left = deadline - performance.now();
      if (left <= 0) return [];
      // Expired leases are looked for at least every RECLAIM_EVERY_MS while waiting.
      const ms = Math.min(RECLAIM_EVERY_MS, await this.untilNextTimer(msg, left));
      const handed = await this.waiting.wait(msg, (wake) =>
        this.bell.wait(ms, signal ? AbortSignal.any([signal, wake]) : wake),
      );
      if (handed.length === 0) continue;
      if (!signal?.aborted) return this.answer(handed, msg);
      await this.giveBack(handed);
      return [];
    }
  }

  /**
   * The claims as sent to the worker. Their queue wait (due → claimed) is observed here, at the
   * claim: the server never sees an external worker's execution start.
   */
  private answer(claims: ClaimedRun[], msg: ClaimMessage): ClaimView[] {
    const { leaseMs } = msg;
    // The attempt's span, ended when the claim ends (`engine/external-leases.ts`).
    const spans = claims.map((c) => startAttemptSpan(c.run, c.token, msg.workerId));
    const live = this.engine.externalLeases.record(
      msg.workerId,
      claims.map((c, i) => ({ runId: c.run.id, token: c.token, span: spans[i]! })),
    );
    // Answered to a worker whose process has exited meanwhile: nobody will run these.
    if (!live) void releaseExternalWorker(this.engine, msg.workerId).catch(() => {});
    for (const c of claims) this.engine.metrics.claimedExternally(c.run.workflow, (c.claimedAt - c.dueAt) / 1000);
    this.engine.events.emit("claimedExternally", msg.workerId, claims.length);
    return claims.map((c, i) => claimView(c, leaseMs, spans[i]!));
  }

  /**
   * Runs handed to a claim whose worker hung up meanwhile: parked with no wake delay,
   * so they are claimable again at once without spending an attempt.
   */
  private async giveBack(claims: ClaimedRun[]): Promise<void> {
    await Promise.all(
      claims.map((c) =>
        this.engine.committer.submit({
          verb: "suspend",
          lease: { runId: c.run.id, token: c.token },
          steps: [],
          children: [],
          wakeAfterMs: 0,
          awaitChildren: false,
        }),
      ),
    );
    this.engine.events.emit("work");
  }

  /** How long to wait: until the next due timer of these workflows, at most `left`. */
  private async untilNextTimer(msg: ClaimMessage, left: number): Promise<number> {
    const { store } = this.engine;
    const next = await store.nextReadyAt(msg.workflows, msg.groups);
    if (next === null) return left;
    const wait = next - (await store.now()) + 1;
    // Due but not claimed: held back (a concurrency limit); completions ring the bell.
    return Math.min(left, wait <= 1 ? 200 : wait);
  }

  private async reclaim(): Promise<void> {
    const now = performance.now();
    if (now - this.lastReclaim < RECLAIM_EVERY_MS) return;
    this.lastReclaim = now;
    try {
      const { ids } = await reclaimExpiredLeases(
        this.engine.store,
        leaseRetryDelay(),
        this.engine.metrics,
        this.engine.events,
      );
      if (ids.length) this.engine.events.emit("work");
      if (now - this.lastSweep >= SWEEP_QUIET_MS) {
        this.lastSweep = now;
        await sweepQuietExternalLeases(this.engine, Date.now(), SWEEP_QUIET_MS);
      }
    } catch {
      // another process holds the write lock; the next claim tries again
    }
  }
}

function claimView(c: ClaimedRun, leaseMs: number, span: Span): ClaimView {
  const timeoutMs = runTimeoutMs(c.run.options);
  return {
    // Without an SDK the span is the stored context's own (non-recording): the same carrier.
    ...(carrierOf(span) ?? traceCarrierOf(c.run.options)),
    runId: c.run.id,
    token: c.token,
    workflow: c.run.workflow,
    task: c.run.task,
    version: c.run.version,
    payload: decodeValue(c.run.payload) ?? null,
    attempt: c.run.attempt,
    maxAttempts: c.run.maxAttempts,
    claimedAt: c.claimedAt,
    dueAt: c.dueAt,
    leaseMs,
    ...(timeoutMs === null ? {} : { deadline: (c.run.startedAt ?? c.claimedAt) + timeoutMs, timeoutMs }),
    steps: c.steps.map((s) => ({
      key: s.key,
      kind: s.kind,
      status: s.status,
      value: decodeValue(s.value) ?? null,
      target: s.target,
      childId: s.childId,
      error: s.error,
      event: s.event,
      wakeAt: s.wakeAt,
      attempts: s.attempts,
      position: s.position,
    })),
  };
}
