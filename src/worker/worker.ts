/**
 * The claim loop: claims runnable runs into free slots, executes them, keeps their
 * leases alive with one batched heartbeat, drains gracefully, and can exit when idle.
 */
import { leaseRetryDelay } from "../core/backoff.js";
import { CodeVersionMissingError, UnknownWorkflowError } from "../sdk/errors.js";
import { serializeError } from "../core/serde.js";
import { terminalSafe } from "../core/terminal-text.js";
import { describeFailure } from "../store/storage-error.js";
import type { EngineEvents } from "../engine/events.js";
import type { Registry } from "../engine/registry.js";
import { claimGroups } from "../store/local-scope.js";
import type { ChildSpec, ClaimedRun, ClaimRequest, Command, Lease, Store } from "../store/types.js";
import type { Ride } from "../engine/committer.js";
import type { AnyWorkflow } from "../sdk/workflow.js";
import { Execution, type ExecutionDeps } from "./execution.js";
import { taskDefinition } from "./task-definition.js";
import { crashAt } from "./crash-points.js";
// Operator messages go to the process's stderr even when printed from inside a run's async
// context (where console.* is captured into the run's log).
import { originalConsole } from "./console-capture.js";
import { endAttemptSpan, startAttemptSpan, withSpan } from "./tracing.js";
import { type ReclaimedRun, reclaimExpiredLeases, releaseLeases } from "./reclaim.js";
import type { WorkerOptions } from "./worker-options.js";

/** The `ended` of a slot whose claim has not started yet. */
const SETTLED: Promise<void> = Promise.resolve();

/**
 * The claims a stopping worker abandoned (still running when its drain timeout passed): their run ids and
 * what became of each one reclaimed (`released` false when the database refused: their leases then expire
 * as usual).
 */
export interface AbandonedClaims {
  ids: string[];
  runs: ReclaimedRun[];
  released: boolean;
}

/** One worker: a claim loop with `concurrency` async slots. */
export class Worker {
  /** Claims held by this worker, by run id: each one's execution once started, and when it has ended. */
  private readonly active = new Map<string, Slot>();
  private running = false;
  private draining = false;
  /** Claiming is held (a release switch waits for the claims held now to end: {@link holdClaims}). */
  private held = false;
  private wake: (() => void) | null = null;
  private loopDone: Promise<void> | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private reclaimTimer: NodeJS.Timeout | null = null;
  private unwatch: (() => void) | null = null;
  private idleSince: number | null = null;
  /** Slots promised to runs being enqueued with `claimFor` (see {@link reserve}). */
  private reserved = 0;
  /** {@link deps} with this worker's {@link ChildLeases} (made on first use). */
  private withChildLeases: ExecutionDeps | null = null;
  /** Slots asked for by claims submitted and not yet answered. */
  private claiming = 0;
  /** Called when no claim is in flight any more (see {@link stop}). */
  private claimsIdle: Array<() => void> = [];
  /**
   * The last claim answered (the claim loop's or one riding a batch) took fewer runs than it
   * asked for: when it committed, nothing more was due for this worker. Cleared by any outside
   * sign of new work ({@link poke}).
   */
  private dry = false;
  /** The claim loop sleeps without having looked at timers (no free slot then): a freed slot must wake it. */
  private sleepingFull = false;
  /** This worker is announcing "work" after a final outcome it wrote (see {@link announceWork}). */
  private ownFinalWork = false;
  private readonly onWork = () => {
    if (!(this.ownFinalWork && this.dry)) this.poke();
  };
  /** Runs this worker has finished a claim of (completed, suspended or fenced). */
  processed = 0;
  /** Claims this worker has taken (each executed here), finished or not. */
  claims = 0;

  constructor(
    private readonly store: Store,
    private readonly registry: Registry,
    private readonly events: EngineEvents,
    private readonly deps: ExecutionDeps,
    readonly options: WorkerOptions,
  ) {}

  /** Starts claiming. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.events.on("work", this.onWork);
    // Its own commits wake it through events ("work"), which know when there is nothing new.
    this.unwatch = this.store.watch(this.onWork, { othersOnly: true });
    this.deps.committer.setRider((batch) => this.ride(batch));
    const beat = Math.max(50, Math.floor(this.options.leaseMs / 3));
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), beat);
    this.heartbeatTimer.unref();
    this.reclaimTimer = setInterval(() => void this.reclaim(), Math.max(100, Math.floor(this.options.leaseMs / 2)));
    this.reclaimTimer.unref();
    this.loopDone = this.loop();
  }

  /**
   * Reserves up to `wanted` slots for runs this process is enqueueing, so they can be
   * created already leased to this worker (one transaction instead of two). Returns
   * the lease parameters and how many slots were reserved; hand each created claim to
   * {@link adopt} and give back unused ones with {@link release}.
   */
  reserve(wanted: number, queue: string): { workerId: string; leaseMs: number; count: number } {
    // While claiming is held, free() is 0.
    const allowed = !this.draining && this.running && (!this.options.queues || this.options.queues.includes(queue));
    const free = allowed ? this.free() : 0;
    const count = Math.max(0, Math.min(wanted, free));
    this.reserved += count;
    return { workerId: this.options.workerId, leaseMs: this.options.leaseMs, count };
  }

  /** The executions' dependencies, with this worker's slots for children where the store leases them. */
  private executionDeps(): ExecutionDeps {
    if (!this.store.leasesChildren) return this.deps;
    return (this.withChildLeases ??= {
      ...this.deps,
      childLeases: {
        reserve: (children) => this.reserveChildren(children),
        adopt: (claims, reserved) => {
          for (const claim of claims) this.adopt(claim);
          this.release(reserved - claims.length);
        },
      },
    });
  }

  /**
   * Reserves slots for a suspension's children and marks that many with `claimFor`: only children
   * this worker claims (its workflows, its groups), due at once (no `runAt`) and not under a
   * concurrency limit (checked at claim). Returns how many were marked.
   */
  private reserveChildren(children: readonly ChildSpec[]): number {
    const claimable = this.registry.claimable();
    const eligible = children.filter(
      (c) =>
        c.runAt === undefined &&
        !c.concurrency &&
        !c.claimFor &&
        (!this.options.queues || this.options.queues.includes(c.queue)) &&
        claimable.includes(c.workflow),
    );
    const { workerId, leaseMs, count } = this.reserve(eligible.length, eligible[0]?.queue ?? "");
    for (let i = 0; i < count; i++) eligible[i]!.claimFor = { workerId, leaseMs };
    return count;
  }

  /** Returns reserved slots that were not used. */
  release(count: number): void {
    this.reserved = Math.max(0, this.reserved - count);
    if (count > 0) this.poke();
  }

  /**
   * Executes a run that was created leased to this worker, using one reserved slot; `sentAt`
   * is when the enqueue that created it was sent (`performance.now()`, see `Sent`).
   */
  adopt(claim: ClaimedRun, sentAt?: number): void {
    this.reserved = Math.max(0, this.reserved - 1);
    this.idleSince = null;
    this.execute(claim, sentAt);
  }

  /** Number of runs executing now. */
  get busy(): number {
    return this.active.size;
  }

  /** Milliseconds this worker has had nothing to do (null while busy or not started). */
  idleFor(): number | null {
    return this.idleSince === null || this.active.size > 0 || this.reserved > 0 ? null : Date.now() - this.idleSince;
  }

  /** Wakes the claim loop (work may be available). */
  poke(): void {
    this.dry = false;
    this.wakeLoop();
  }

  /**
   * True while a claim of `runId` executes here and its end has not been announced yet (its
   * `settled` or `fenced` event is still to come).
   */
  holds(runId: string): boolean {
    const slot = this.active.get(runId);
    return slot !== undefined && !slot.announced;
  }

  private wakeLoop(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  /**
   * Stops claiming and waits up to `timeoutMs` for running claims to finish (they keep
   * heartbeating meanwhile). Claims still running after that are abandoned: their leases are
   * released at once ({@link releaseAbandoned}), so another worker takes them over without
   * waiting for the leases to expire. Resolves with what was abandoned (nothing on a second call).
   */
  async stop(timeoutMs = 30_000): Promise<AbandonedClaims> {
    if (!this.running) return { ids: [], runs: [], released: false };
    this.draining = true;
    this.deps.committer.setRider(null);
    this.poke();
    await this.loopDone;
    await this.awaitClaims(timeoutMs);
    this.running = false;
    this.events.off("work", this.onWork);
    this.unwatch?.();
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.reclaimTimer) clearInterval(this.reclaimTimer);
    return this.releaseAbandoned();
  }

  /**
   * Stops taking new claims (the claim loop, complete-and-claim-next and enqueue-time claims)
   * and waits up to `timeoutMs` for every claim held now to end (finish, park or be fenced),
   * while they keep heartbeating. Resolves with how many claims were still held when it gave
   * up (0: drained) or `signal` aborted. Claiming stays held until {@link resumeClaims}. A release switch uses it
   * so new work starts on the new release only once in-flight work has drained.
   */
  async holdClaims(timeoutMs: number, signal?: AbortSignal): Promise<{ left: number }> {
    this.held = true;
    await this.awaitClaims(timeoutMs, signal);
    return { left: this.active.size };
  }

  /**
   * Waits for the claim requests in flight to settle, then up to `timeoutMs` (or until
   * `signal` aborts) for every claim held then to end: {@link stop} and {@link holdClaims}.
   */
  private async awaitClaims(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    while (this.claiming > 0) await new Promise<void>((r) => this.claimsIdle.push(r));
    const all = Promise.all([...this.active.values()].map((slot) => slot.ended));
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const gaveUp = new Promise<void>((r) => {
      timer = setTimeout(r, timeoutMs);
      onAbort = () => r();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    await Promise.race([all, gaveUp]);
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }

  /**
   * At the end of {@link stop}: the claims still running (its drain timeout passed) are abandoned. Ends
   * their leases now and reclaims them, as an expiry would (another attempt after the run's
   * backoff, or failed on its last), so another worker need not wait for the leases to run out;
   * their executions' later writes are fenced. The runs' errors say they were released after the
   * drain timeout (`LEASE_RELEASED`, `drain-timeout`), not that their leases expired.
   */
  private async releaseAbandoned(): Promise<AbandonedClaims> {
    const leases = [...this.active.values()].map((slot) => slot.lease);
    const ids = leases.map((l) => l.runId);
    if (leases.length === 0 || this.running) return { ids, runs: [], released: false };
    try {
      const runs = await releaseLeases(
        {
          store: this.store,
          committer: this.deps.committer,
          retryDelay: leaseRetryDelay(this.deps.random),
          metrics: this.deps.metrics,
          events: this.events,
        },
        leases,
        "drain-timeout",
      );
      return { ids, runs, released: true };
    } catch (err) {
      originalConsole.error(`sluice: could not release the abandoned claims (${describeFailure(err)})`);
      return { ids, runs: [], released: false };
    }
  }

  /** Takes new claims again after {@link holdClaims}. */
  resumeClaims(): void {
    if (!this.held) return;
    this.held = false;
    this.poke();
  }

  /** Slots neither running, promised to an enqueue, nor asked for by a claim in flight. */
  private free(): number {
    if (this.held) return 0;
    return Math.max(0, this.options.concurrency - this.active.size - this.reserved - this.claiming);
  }

  private claimRequest(limit: number): ClaimRequest {
    return {
      workerId: this.options.workerId,
      limit,
      leaseMs: this.options.leaseMs,
      workflows: this.registry.claimable(),
      queues: claimGroups(this.options.queues, this.options.server),
      server: this.options.server,
    };
  }

  /**
   * Counts `limit` slots as being claimed until `settle` is called with what the claim returned
   * (`answered` false when the claim failed: then nothing is known about what is due).
   */
  private startClaim(limit: number): (claimed: ClaimedRun[], answered?: boolean, sentAt?: number) => void {
    this.claiming += limit;
    return (claimed, answered = true, sentAt) => {
      this.claiming -= limit;
      this.dry = answered && claimed.length < limit;
      if (claimed.length > 0) crashAt("after-claim");
      for (const c of claimed) this.execute(c, sentAt);
      if (this.claiming === 0) for (const r of this.claimsIdle.splice(0)) r();
    };
  }

  /**
   * Complete-and-claim-next: a batch that ends claims of this worker (completions,
   * suspensions) also claims the slots they free, in the same transaction.
   */
  private ride(batch: readonly Command[]): Ride | null {
    if (this.draining || this.held || !this.running) return null;
    let freeing = 0;
    // Nothing was due at this worker's last claim and nothing new came since (`dry`), and the batch
    // adds any: its outcomes are final and of runs without a parent (a retry or a park may make a
    // run due, a child's end may re-queue its parent, an enqueue adds a run). A claim would then
    // come back empty; without it the store can commit right behind the batch's last write.
    let nothingNew = this.dry;
    for (const c of batch) {
      if ((c.verb === "complete" || (c.verb === "suspend" && !c.keepClaim)) && this.active.has(c.lease.runId))
        freeing++;
      if (
        c.verb === "enqueue" ||
        c.verb === "suspend" ||
        (c.verb === "complete" && (c.outcome.status === "retry" || c.claimed?.parentId !== null))
      )
        nothingNew = false;
    }
    const limit = Math.min(freeing, this.options.concurrency) + this.free();
    if (freeing === 0 || limit <= 0 || nothingNew) return null;
    const settle = this.startClaim(limit);
    return {
      command: { verb: "claim", request: this.claimRequest(limit) },
      settle: (answer, sentAt) =>
        "result" in answer && answer.result.ok ? settle(answer.result.claimed ?? [], true, sentAt) : settle([], false),
    };
  }

  /** Claims up to `limit` runs through the group commit and starts them; returns how many. */
  private async claimInto(limit: number): Promise<number> {
    const settle = this.startClaim(limit);
    let claimed: ClaimedRun[] = [];
    let answered = false;
    let sentAt: number | undefined;
    try {
      const r = await this.deps.committer.submit(
        { verb: "claim", request: this.claimRequest(limit) },
        (at) => (sentAt = at),
      );
      if (r.ok) claimed = r.claimed ?? [];
      answered = r.ok;
    } finally {
      settle(claimed, answered, sentAt);
    }
    return claimed.length;
  }

  private async loop(): Promise<void> {
    while (!this.draining) {
      const free = this.free();
      let claimed = 0;
      if (free > 0) {
        try {
          claimed = await this.claimInto(free);
        } catch (err) {
          originalConsole.error(`sluice worker: claim failed (${describeFailure(err)}); retrying`);
          await this.sleep(this.options.pollMs);
          continue;
        }
      }
      if (claimed > 0) {
        this.idleSince = null;
        await new Promise((r) => setImmediate(r));
        continue;
      }
      if (this.active.size === 0) this.idleSince ??= Date.now();
      const wait = await this.idleWait(free);
      this.sleepingFull = free <= 0;
      await this.sleep(wait);
    }
  }

  /** How long to wait before the next claim: until the next timer, capped by the poll interval. */
  private async idleWait(free: number): Promise<number> {
    if (free <= 0) return this.options.pollMs;
    try {
      const next = await this.store.nextReadyAt(
        this.registry.claimable(),
        claimGroups(this.options.queues, this.options.server),
      );
      if (next === null) return this.options.pollMs;
      const wait = next - (await this.store.now()) + 1;
      // Due but not claimed: held back by a concurrency limit; completions will poke us.
      if (wait <= 1) return Math.min(this.options.pollMs, 200);
      return Math.min(this.options.pollMs, wait);
    } catch {
      return this.options.pollMs;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        setImmediate(resolve);
      };
    });
  }

  /** Runs `claim` in a slot; `sentAt`: when its claim was sent (see `Sent`), default now. */
  private execute(claim: ClaimedRun, sentAt?: number): void {
    const id = claim.run.id;
    const slot: Slot = {
      execution: null,
      lease: { runId: id, token: claim.token },
      lost: false,
      announced: false,
      ended: SETTLED,
    };
    this.active.set(id, slot);
    this.claims++;
    const ended = () => {
      this.active.delete(id);
      this.processed++;
      // The batch that ended this claim also claimed for the slot it freed (see ride): a
      // claim of our own now finds nothing more, unless that one came back full or the loop
      // sleeps without having looked at timers.
      if (!this.dry || this.sleepingFull) this.wakeLoop();
    };
    // One `then` rather than `catch` then `finally` (one promise a claim instead of four).
    slot.ended = this.runClaim(claim, slot, sentAt).then(ended, (err: unknown) => {
      try {
        originalConsole.error(
          terminalSafe(`sluice worker: run ${id} crashed the executor: ${(err as Error).stack ?? err}`, {
            indent: "  ",
          }),
        );
      } finally {
        ended();
      }
    });
  }

  private async runClaim(claim: ClaimedRun, slot: Slot, sentAt: number | undefined): Promise<void> {
    const { run } = claim;
    const received = performance.now();
    let def: AnyWorkflow | undefined;
    let failure: Error | null = null;
    try {
      // Loaded already (the usual case): no `await`, the handler starts in this same turn.
      const loaded = this.registry.resolveLoaded(run.workflow, run.version);
      def = loaded === null ? await this.registry.resolve(run.workflow, run.version) : loaded;
      if (!def) {
        failure =
          run.version && this.registry.get(run.workflow)
            ? new CodeVersionMissingError(run.workflow, run.version)
            : new UnknownWorkflowError(run.workflow, this.registry.names());
      } else if (run.task) def = taskDefinition(def, run.task);
    } catch (err) {
      failure = err as Error;
    }
    if (failure || !def) {
      try {
        await this.deps.committer.submit({
          verb: "complete",
          lease: { runId: run.id, token: claim.token },
          outcome: { status: "failed", error: serializeError(failure) },
        });
      } catch (err) {
        originalConsole.error(
          terminalSafe(
            `sluice worker: run ${run.id}: could not record that it failed (${failure?.message}): ${describeFailure(err)}; it is retried when its lease expires`,
          ),
        );
        return;
      }
      this.deps.metrics?.attempt(run.workflow, "failed-to-start", 0);
      this.deps.metrics?.finished(run.workflow, "failed", (claim.claimedAt - run.createdAt) / 1000);
      slot.announced = true;
      this.events.emit("settled", run.id);
      this.announceWork(true);
      return;
    }
    // The lease was found gone while the workflow's code was being resolved: nothing may run.
    if (slot.lost) {
      slot.announced = true;
      this.events.emit("fenced", run.id);
      return;
    }
    const exec = new Execution(claim, def, this.executionDeps(), sentAt);
    slot.execution = exec;
    const span = (exec.traceSpan = startAttemptSpan(run, claim.token, this.options.workerId));
    const t0 = performance.now();
    const local = t0 - received;
    this.deps.metrics?.started(run.workflow, local / 1000, (claim.claimedAt - claim.dueAt + local) / 1000);
    const result = await withSpan(span, () => {
      if (this.events.listenerCount("started")) this.events.emit("started", run, claim.token);
      return exec.start();
    });
    const written = exec.written;
    endAttemptSpan(span, written?.status ?? result, written && "error" in written ? written.error : null);
    this.deps.metrics?.attempt(run.workflow, result, (performance.now() - t0) / 1000);
    slot.announced = true;
    if (result === "completed") this.events.emit("settled", run.id, exec.finishedRun);
    // A completion may have re-queued a parent; a suspension may have created children.
    if (result === "fenced") this.events.emit("fenced", run.id);
    else this.announceWork(result === "completed" && written !== null && written.status !== "retry");
  }

  /**
   * Tells the engine's parts that work may be runnable after a claim of this worker ended. After
   * a final outcome (`final`) the only new work is a parent it re-queued, due now: the claim
   * riding the same transaction (see {@link ride}) has already looked, so when that claim came
   * back short this worker's own loop is not woken again. A retry or a parked run may have set a
   * timer the sleeping loop has not seen, so it is woken as before.
   */
  private announceWork(final: boolean): void {
    this.ownFinalWork = final;
    try {
      this.events.emit("work");
    } finally {
      this.ownFinalWork = false;
    }
  }

  private async heartbeat(): Promise<void> {
    // Claims whose workflow code is still being resolved (no execution yet) hold their lease too.
    const slots = [...this.active.values()].filter((slot) => (slot.execution ? slot.execution.holdsLease : !slot.lost));
    if (slots.length === 0) return;
    crashAt("before-renewal");
    try {
      const r = await this.deps.committer.submit({
        verb: "heartbeat",
        leases: slots.map((slot) => slot.lease), // the execution's lease is the same claim's (run id, token)
        leaseMs: this.options.leaseMs,
      });
      if (r.ok && r.lost?.length) {
        const lost = new Set(r.lost);
        for (const slot of slots) {
          if (!lost.has(slot.lease.runId)) continue;
          if (slot.execution) slot.execution.markLeaseLost();
          else slot.lost = true;
        }
      }
    } catch (err) {
      originalConsole.error(`sluice worker: heartbeat failed (${describeFailure(err)})`);
    }
  }

  private async reclaim(): Promise<void> {
    try {
      const { ids } = await reclaimExpiredLeases(
        this.store,
        leaseRetryDelay(this.deps.random),
        this.deps.metrics,
        this.events,
      );
      if (ids.length) this.poke();
    } catch {
      // another process holds the lock; the next tick retries
    }
  }
}

/** One claim held by the worker: its execution (none while its workflow is resolved, or if that failed). */
interface Slot {
  execution: Execution | null;
  /** The claim's lease, heartbeated from the claim on (before there is an execution). */
  lease: Lease;
  /** A heartbeat found the lease gone before the execution existed. */
  lost: boolean;
  /** The claim's end was announced (`settled` or `fenced`), or it ended without an event. */
  announced: boolean;
  /** Settles when the claim has ended and been accounted for. */
  ended: Promise<void>;
}
