/**
 * One claim of one run: replays the handler against the run's checkpoint, lets
 * uncached primitives suspend it, and reports how the claim ended.
 *
 * Suspension: an uncached primitive that must park the run (a long sleep, a wait,
 * a child task) registers a pending call and returns a promise that never settles.
 * At the end of the current event-loop turn (after every sibling call of a
 * `Promise.all` has been made, and after in-flight inline steps have saved), all
 * pending calls are written in one `suspend` command and the claim ends. User code
 * never sees the suspension, so a `try/catch` cannot swallow it; an SDK call made
 * after it (from code racing a timer) throws `WorkflowSuspendedError`.
 */
import { backoffDelay } from "../core/backoff.js";
import { KeyAllocator } from "../core/keys.js";
import { decodeValue, encodeValue, serializeError } from "../core/serde.js";
import type { GroupCommitter } from "../engine/committer.js";
import type { EngineMetrics } from "../engine/metrics.js";
import { InvalidInputError, LeaseLostError, NonDeterminismError, WorkflowSuspendedError } from "../sdk/errors.js";
import type {
  ApprovalOptions,
  ApprovalResult,
  ResumeUrls,
  TaskOptions,
  TaskTarget,
  WacHost,
} from "../sdk/windmill/types.js";
import { runInScope, type SluiceRuntime } from "../sdk/runtime.js";
import type { AnyWorkflow } from "../sdk/workflow.js";
import { StorageError } from "../store/storage-error.js";
import type {
  ChildSpec,
  ClaimedRun,
  Command,
  CommandResult,
  Lease,
  LogLine,
  RunOutcome,
  RunRecord,
  StepKind,
  StepRecord,
  StepWrite,
} from "../store/types.js";
import type { LogTarget } from "./console-capture.js";
import { createWorkflowContext } from "./context-impl.js";
import { BailSignal, FailSignal, isTerminalError, markTerminal } from "./control.js";
import { ClaimLifecycle } from "./claim-lifecycle.js";
import { callTask, wacApproval, wacResumeUrls, wacSleep, wacStep } from "./wac-host.js";
import { tracePark } from "./tracing.js";
import { crashAt } from "./crash-points.js";
import { InlineWork } from "./inline-work.js";
import { ClaimWrites } from "./claim-writes.js";
import { AheadSaves } from "./ahead-saves.js";
import { TaskDeadline } from "./task-deadline.js";
import type { Span } from "@opentelemetry/api";

/** Settings and collaborators shared by every execution of one worker. */
export interface ExecutionDeps {
  committer: GroupCommitter;
  /** Where claim and step durations are recorded; none when absent. */
  metrics?: EngineMetrics;
  runtime: SluiceRuntime;
  /** Sleeps up to this long run inline, holding the lease (default 30 s). */
  inlineSleepMs: number;
  maxValueBytes: number;
  random: () => number;
  /** Prints captured lines as they happen (dev mode), or null. */
  echo: ((line: LogLine, run: RunRecord) => void) | null;
  /** Tells the operator about a problem of this process (a write the database refused). Default: stderr. */
  warn?: (message: string) => void;
  /** Where resume links point and the secret that signs them. */
  resumeLinks: { baseUrl: () => Promise<string>; secret: () => Promise<string> };
  /** Slots of the executing worker for children a suspension creates leased to it; none when absent. */
  childLeases?: ChildLeases;
  /**
   * Whether a `taskScript(path)`/`taskFlow(path)` call may start its child, as an enqueue of the
   * runnable it names with `payload` (the call's arguments) decides: null when it exists (this
   * process registers it, or a process published it) and the arguments fit its parameters, else the
   * `UnknownWorkflowError` or `InvalidArgumentsError` the enqueue would throw. A promise when the
   * store must be asked; it never rejects (a failed read answers null: the suspension meets the
   * database next). Absent: not checked.
   */
  runnable?: (name: string, payload: unknown) => Error | null | Promise<Error | null>;
}

/**
 * The executing worker's slots for a suspension's children: the children it has slots for are
 * created already leased to it (`claimFor`) in the suspension's own transaction, instead of
 * inserted and then claimed, and their claims run here once it commits.
 */
export interface ChildLeases {
  /** Marks up to as many of `children` as there are free slots with `claimFor`; returns how many. */
  reserve(children: readonly ChildSpec[]): number;
  /** Runs the children's `claims` (created leased) and gives back the rest of the `reserved` slots. */
  adopt(claims: readonly ClaimedRun[], reserved: number): void;
}

/**
 * How a claim ended: its outcome written (`completed`), parked (`suspended`), refused
 * because another attempt owns the run (`fenced`), or given up because the database
 * failed in a way a retry cannot pass (`abandoned`: nothing more is written; the
 * lease expires and the run is retried from its checkpoint).
 */
export type ExecutionResult = "completed" | "suspended" | "fenced" | "abandoned";

/** A durable call that must park the run; written by the next suspend. */
export interface PendingCall {
  /** Checkpoint to write as pending (absent when re-parking on an existing one). */
  step?: StepWrite;
  child?: ChildSpec;
  /** Wake the run after this long even if nothing else resolves. */
  wakeAfterMs?: number | null;
  /** The run waits for outstanding children. */
  awaitChildren?: boolean;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/** The journal of a claim without checkpoints (a first claim): one empty map for all of them. */
const NO_STEPS: ReadonlyMap<string, StepRecord> = new Map();

const NEVER = new Promise<never>(() => {});

/** One claim of one run. */
export class Execution implements LogTarget, WacHost {
  readonly run: RunRecord;
  readonly lease: Lease;
  /** Where this claim is in its life (see {@link ClaimLifecycle}). */
  private readonly lifecycle = new ClaimLifecycle();
  /** A heartbeat found the lease gone. */
  private leaseLost = false;
  /** This claim's writes, retried after storage failures. */
  private readonly writes = new ClaimWrites(this);
  private readonly journal: ReadonlyMap<string, StepRecord>;
  private readonly keys = new KeyAllocator();
  private position = 0;
  private pending: PendingCall[] = [];
  private readonly inline = new InlineWork();
  /** Step checkpoints handed to the next group commit before their answer (see {@link saveAhead}). */
  private readonly ahead: AheadSaves;
  /** The outcome `ctx.bail` (wins) or `ctx.fail` asked for, whatever the handler does afterwards. */
  private verdict: Extract<RunOutcome, { status: "cancelled" | "failed" }> | null = null;
  private readonly unobserved: Array<{ key: string; error: Error; observed: () => boolean }> = [];
  private timeoutTimer: NodeJS.Timeout | null = null;
  /** `performance.now()` when the claim's transaction was sent: {@link now} counts from here. */
  private readonly t0: number;
  /** The run as its terminal write left it (set when the claim completed with a final outcome). */
  finishedRun: RunRecord | undefined;
  private readonly claimedAt: number;
  /** The task's `timeout` (null: none). */
  private readonly deadline: TaskDeadline | null;
  private resolveDone!: (r: ExecutionResult) => void;
  /** Resolves when the claim has ended. */
  readonly done: Promise<ExecutionResult>;
  /** This claim's span (`worker/tracing.ts`), set by the worker; steps, parks and children hang under it. */
  traceSpan: Span | null = null;
  /** The outcome this claim wrote (`succeeded`, `failed`, `cancelled`, `retry`), once written. */
  written: RunOutcome | null = null;

  /**
   * @param claimSent `performance.now()` when the claim's transaction was sent (the store read
   *   `claimedAt` then); default now, which makes {@link now} early by however long the claim took.
   */
  constructor(
    claim: ClaimedRun,
    private readonly def: AnyWorkflow,
    readonly deps: ExecutionDeps,
    claimSent: number = performance.now(),
  ) {
    this.t0 = claimSent;
    this.run = claim.run;
    this.lease = { runId: claim.run.id, token: claim.token };
    this.claimedAt = claim.claimedAt;
    this.deadline = TaskDeadline.of(claim.run, claim.claimedAt);
    this.journal = claim.steps.length === 0 ? NO_STEPS : new Map(claim.steps.map((s) => [s.key, s]));
    this.done = new Promise((r) => (this.resolveDone = r));
    this.ahead = new AheadSaves({
      lease: this.lease,
      submitLate: (build) => deps.committer.submitLate(build),
      retry: (command, error) => this.writes.retry(command, error),
      saved: (steps, result) => this.aheadSaved(steps, result),
      failed: () => this.abandon(),
    });
  }

  /** Starts the handler; returns {@link done}. */
  start(): Promise<ExecutionResult> {
    if (this.deadline?.passed(this.now())) {
      // Taken over past its timeout (e.g. from a worker its code blocked until the lease ran out): not run again.
      void this.finishWith(this.timedOut(this.deadline));
      return this.done;
    }
    this.armTimeout();
    const ctx = createWorkflowContext(this);
    const scope = { execution: this, stepKey: null, runtime: this.deps.runtime };
    let payload: unknown;
    try {
      payload = decodeValue(this.run.payload);
    } catch (err) {
      void this.onHandlerSettled({ ok: false, error: markTerminal(err) });
      return this.done;
    }
    const promise = runInScope(scope, () => {
      try {
        return Promise.resolve(this.def.handler(payload, ctx));
      } catch (err) {
        return Promise.reject(err);
      }
    });
    promise.then(
      (value) => this.onHandlerSettled({ ok: true, value }),
      (error) => this.onHandlerSettled({ ok: false, error }),
    );
    return this.done;
  }

  /** Current time on the store's clock (claim time plus monotonic time elapsed since the claim was sent). */
  now(): number {
    return this.claimedAt + (performance.now() - this.t0);
  }

  /** True while the handler is re-running calls already recorded in the checkpoint. */
  replaying(): boolean {
    return this.position < this.journal.size;
  }

  /** Whether durable calls may still be made (the handler runs, or has just settled and inline work drains). */
  get active(): boolean {
    const state = this.lifecycle.state;
    return state === "running" || state === "settling";
  }

  /** Whether heartbeats should extend this claim's lease (live, or retrying a write the database refused). */
  get holdsLease(): boolean {
    return (this.active || this.writes.retrying) && !this.leaseLost;
  }

  /** @throws when the execution is over: user code raced past a suspension, or the lease was lost */
  assertActive(): void {
    if (this.lifecycle.state === "fenced") throw new LeaseLostError(this.run.id);
    if (!this.active) throw new WorkflowSuspendedError();
  }

  /** Allocates the key and position of the next durable call named `name`. */
  nextCall(name: string): { key: string; position: number } {
    this.assertActive();
    return { key: this.keys.next(name), position: this.position++ };
  }

  /**
   * The checkpoint at `key`, checked against what the code now asks for.
   * @throws NonDeterminismError when the recorded kind or target differs
   */
  lookup(key: string, kind: StepKind, target: string | null, position: number): StepRecord | undefined {
    const rec = this.journal.get(key);
    if (rec && (rec.kind !== kind || (rec.target ?? null) !== target)) {
      throw new NonDeterminismError(key, position, describe(rec.kind, rec.target), describe(kind, target));
    }
    return rec;
  }

  /** Encodes a value with this engine's size limit. */
  encode(value: unknown, what: string): string | null {
    return encodeValue(value, what, this.deps.maxValueBytes);
  }

  /**
   * Persists checkpoints before returning (group-committed with other runs).
   * @throws LeaseLostError when the lease is stale (the write was refused)
   */
  save(steps: StepWrite[]): Promise<void> {
    // After checkpoints written ahead: they are answered first (a failed batch retries them).
    if (this.ahead.pending) return this.ahead.settled().then(() => (this.assertActive(), this.save(steps)));
    return this.writes.submit({ verb: "saveSteps", lease: this.lease, steps }).then((result) => {
      if (!result.ok) {
        this.markFenced();
        throw new LeaseLostError(this.run.id);
      }
    });
  }

  /**
   * Hands a step's finished checkpoint to the next group commit without waiting for its answer
   * (see `worker/ahead-saves.ts`): the run's outcome may join its transaction, and everything
   * else durable waits for it ({@link aheadSettled}). A refusal fences the claim; a failure no
   * retry can pass abandons it.
   */
  saveAhead(step: StepWrite): void {
    this.ahead.stage(step);
  }

  /** Whether a checkpoint handed over by {@link saveAhead} is still unanswered. */
  get aheadPending(): boolean {
    return this.ahead.pending;
  }

  /** Resolves once every checkpoint handed over by {@link saveAhead} is answered. */
  aheadSettled(): Promise<void> {
    return this.ahead.settled();
  }

  private aheadSaved(steps: readonly StepWrite[], result: CommandResult): void {
    if (!result.ok) return this.markFenced();
    const metrics = this.deps.metrics;
    if (!metrics) return;
    const now = this.now();
    for (const st of steps) metrics.step(this.run.workflow, "done", (now - (st.startedAt ?? now)) / 1000);
  }

  /** Tracks inline work (a step body and its save) that a suspension must wait for. */
  track<T>(work: () => Promise<T>): Promise<T> {
    return this.inline.track(work);
  }

  /** Marks inline work begun, for a caller that awaits it in its own frame; pair with {@link endInline}. */
  beginInline(): void {
    this.inline.begin();
  }

  /** Marks inline work begun by {@link beginInline} ended. */
  endInline(): void {
    this.inline.end();
  }

  /** Registers a call that parks the run; the returned promise never settles. */
  defer<T>(call: PendingCall): Promise<T> {
    this.assertActive();
    if (call.child) call.child.options = tracePark(this, call) ?? null;
    else if (this.traceSpan) tracePark(this, call);
    // The first pending call schedules the one flush; later ones join it (the flush ends the claim).
    if (this.pending.push(call) === 1) setImmediate(() => void this.flush());
    return NEVER;
  }

  // --- workflows as code (WacHost) -------------------------------------------------

  callTask(target: TaskTarget, options: TaskOptions, args: unknown[] | Record<string, unknown>): Promise<unknown> {
    return callTask(this, target, options, args);
  }
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
    return wacStep(this, name, fn);
  }
  sleepSeconds(seconds: number): Promise<void> {
    return wacSleep(this, seconds);
  }
  waitForApproval(options: ApprovalOptions): Promise<ApprovalResult> {
    return wacApproval(this, options);
  }
  resumeUrls(approver: string | null): Promise<ResumeUrls> {
    return wacResumeUrls(this, approver);
  }

  /** The key the next call named `name` will get. */
  peekKey(name: string): string {
    return this.keys.peek(name);
  }

  /** Project-relative path of the workflow's module, if it came from a file. */
  modulePath(): string | null {
    return this.def.module?.path ?? null;
  }

  /**
   * The name a `task(fn)` child uses to find `fn` again: its entry in the module's
   * function table (by identity), else its own name, registered for this process.
   */
  functionName(fn: (...args: any[]) => unknown): string {
    const table = this.def.module?.functions;
    if (table) {
      for (const [name, f] of table) if (f === fn) return name;
    }
    if (!fn.name) {
      throw markTerminal(
        new InvalidInputError(
          "task() needs a named module-scope function: declare it with `async function name(...)` or `const name = async (...) =>`",
        ),
      );
    }
    if (table && !table.has(fn.name)) table.set(fn.name, fn);
    return fn.name;
  }

  /**
   * A failed task's result as a rejected promise that is never reported as unhandled;
   * if nobody awaits it before the workflow ends, the failure is logged instead.
   */
  trackRejection(key: string, error: Error): Promise<never> {
    const rejected = Promise.reject(error);
    rejected.catch(() => {});
    let observed = false;
    this.unobserved.push({ key, error, observed: () => observed });
    const thenable = {
      then: (f?: (v: never) => unknown, r?: (e: unknown) => unknown) => ((observed = true), rejected.then(f, r)),
      catch: (r?: (e: unknown) => unknown) => ((observed = true), rejected.catch(r)),
      finally: (f?: () => void) => ((observed = true), rejected.finally(f)),
    };
    return thenable as unknown as Promise<never>;
  }

  /** Records that the handler called `ctx.bail` (honoured even if the throw is caught). */
  noteBail(reason: string | null): never {
    if (this.verdict?.status !== "cancelled") this.verdict = { status: "cancelled", reason };
    throw new BailSignal(reason);
  }

  /** Records that the handler called `ctx.fail`. */
  noteFail(error: unknown): never {
    this.verdict ??= { status: "failed", error: serializeError(error) };
    throw new FailSignal(error);
  }

  /**
   * Captures a log line for this run. Lines the workflow body prints while replaying
   * recorded history (before its last recorded call) were already captured by an
   * earlier execution, so they are not repeated.
   */
  log(level: LogLine["level"], message: string, stepKey: string | null): void {
    if (stepKey === null && this.replaying()) return;
    const line: LogLine = {
      runId: this.run.id,
      stepKey,
      attempt: this.run.attempt,
      level,
      message,
      ts: Date.now(),
      token: this.lease.token,
    };
    this.deps.committer.log(line);
    this.deps.echo?.(line, this.run);
  }

  /** Whether a heartbeat found the lease gone (a write being retried then stops). */
  get leaseGone(): boolean {
    return this.leaseLost;
  }

  /** A heartbeat found the lease gone: stop writing, including a write being retried. */
  markLeaseLost(): void {
    this.leaseLost = true;
    this.markFenced();
  }

  /** The database failed in a way a retry cannot pass: stop here and let the lease expire. */
  private abandon(): void {
    if (this.timeoutTimer) clearTimeout(this.timeoutTimer);
    // A failure that comes back after the claim ended (a heartbeat fenced it) changes nothing.
    if (!this.lifecycle.can("abandon")) return;
    this.lifecycle.fire("abandon");
    this.resolveDone("abandoned");
  }

  /** The lease was lost (heartbeat or write refused): stop writing. A claim that already ended stays as it ended. */
  markFenced(): void {
    if (!this.lifecycle.can("fence")) return;
    if (this.timeoutTimer) clearTimeout(this.timeoutTimer);
    this.lifecycle.fire("fence");
    this.resolveDone("fenced");
  }

  /** The claim's own suspension or outcome was refused (the lease is stale): it ends fenced. */
  private endRefused(): void {
    if (this.timeoutTimer) clearTimeout(this.timeoutTimer);
    if (this.lifecycle.can("refused")) this.lifecycle.fire("refused");
    this.resolveDone("fenced");
  }

  private async flush(): Promise<void> {
    await this.inline.idle();
    if (this.ahead.pending) await this.ahead.settled();
    // The handler settled (its outcome is written instead), or the claim ended meanwhile.
    if (!this.lifecycle.can("suspend")) return;
    this.lifecycle.fire("suspend");
    const calls = this.pending.splice(0);
    const steps = calls.flatMap((c) => (c.step ? [c.step] : []));
    const children = calls.flatMap((c) => (c.child ? [c.child] : []));
    const wakes = calls.map((c) => c.wakeAfterMs).filter((w): w is number => typeof w === "number");
    const wakeAfterMs = wakes.length ? Math.max(0, Math.min(...wakes)) : null;
    const awaitChildren = calls.some((c) => c.awaitChildren || c.child);
    const leases = children.length > 0 ? this.deps.childLeases : undefined;
    let reserved = leases?.reserve(children) ?? 0;
    try {
      const result = await this.writes.submit({
        verb: "suspend",
        lease: this.lease,
        steps,
        children,
        wakeAfterMs,
        awaitChildren,
      });
      // The children created leased run here (their claims came with the suspension's answer).
      if (reserved > 0 && result.ok && result.claimed?.length) crashAt("after-suspend-commit");
      if (reserved > 0) leases!.adopt(result.ok ? (result.claimed ?? []) : [], reserved);
      reserved = 0;
      // A heartbeat may have found the lease gone while the suspension was written: then it stays fenced.
      if (!result.ok) return this.endRefused();
      if (this.timeoutTimer) clearTimeout(this.timeoutTimer);
      if (!this.lifecycle.can("parked")) return;
      this.lifecycle.fire("parked");
      this.resolveDone("suspended");
    } catch {
      if (reserved > 0) leases!.adopt([], reserved);
      this.abandon();
    }
  }

  private async onHandlerSettled(settled: Settled): Promise<void> {
    if (!this.lifecycle.can("settle")) return;
    this.lifecycle.fire("settle");
    // Most handlers settle with nothing inline left: no wait (two promises a run fewer).
    if (this.inline.busy) await this.inline.idle();
    // A timeout, a lost lease or a failed write may have ended the claim meanwhile.
    if (this.lifecycle.state !== "settling") return;
    if (this.pending.length) {
      const keys = this.pending.map((p) => p.step?.key).filter(Boolean);
      this.log(
        "warn",
        `the workflow ended while ${this.pending.length} durable call(s) were never awaited (${keys.join(", ")}); they were dropped`,
        null,
      );
      this.pending = [];
    }
    for (const u of this.unobserved) {
      if (!u.observed())
        this.log("warn", `task "${u.key}" failed and its result was never awaited: ${u.error.message}`, null);
    }
    if (!settled.ok && settled.error instanceof LeaseLostError) return this.markFenced();
    // A checkpoint the database refused for good: writing an outcome would fail the same way.
    if (!settled.ok && settled.error instanceof StorageError && !settled.error.transient) return this.abandon();
    await this.finishWith(this.outcome(settled));
  }

  /** Writes the claim's outcome (fenced writes end the claim as fenced). */
  private async finishWith(outcome: RunOutcome): Promise<void> {
    if (this.timeoutTimer) clearTimeout(this.timeoutTimer);
    this.lifecycle.fire("finish");
    try {
      const command: Command = { verb: "complete", lease: this.lease, outcome, claimed: this.run };
      // In the batch of the last checkpoints written ahead (one transaction), else after their answer.
      let result = this.ahead.attach(command);
      if (!result && this.ahead.pending) {
        await this.ahead.settled();
        // A checkpoint no retry could write abandoned the claim meanwhile.
        if (this.lifecycle.state !== "finishing") return;
      }
      result ??= this.writes.submit(command);
      const answer = await result;
      if (!answer.ok) return this.endRefused();
      this.lifecycle.fire("written");
      this.finishedRun = answer.finished;
      if (outcome.status !== "retry")
        this.deps.metrics?.finished(this.run.workflow, outcome.status, (this.now() - this.run.createdAt) / 1000);
      this.written = outcome;
      this.resolveDone("completed");
    } catch {
      this.abandon();
    }
  }

  /** Tasks with a `timeout` option fail once it passes (`task-deadline.ts`). */
  private armTimeout(): void {
    const deadline = this.deadline;
    if (deadline === null) return;
    this.timeoutTimer = deadline.arm(this.now(), () => {
      if (this.lifecycle.can("finish")) void this.finishWith(this.timedOut(deadline));
    });
  }

  /** The outcome of a task past its `timeout` (logged on the run). */
  private timedOut(deadline: TaskDeadline): RunOutcome {
    this.log("error", `timed out after ${deadline.timeoutMs / 1000} s`, null);
    return deadline.outcome();
  }

  private outcome(settled: Settled): RunOutcome {
    // Code that blocked the event loop kept the timer from firing: settled past the timeout, it still fails.
    if (this.deadline?.passed(this.now())) return this.timedOut(this.deadline);
    if (this.verdict) return this.verdict;
    if (settled.ok) {
      try {
        return { status: "succeeded", result: this.encode(settled.value, `result of run ${this.run.id}`) };
      } catch (err) {
        return { status: "failed", error: serializeError(err) };
      }
    }
    const error = serializeError(settled.error);
    if (isTerminalError(settled.error) || this.run.attempt >= this.run.maxAttempts) return { status: "failed", error };
    return { status: "retry", error, delayMs: backoffDelay(this.run.backoff, this.run.attempt, this.deps.random) };
  }
}

function describe(kind: StepKind, target: string | null): string {
  return target ? `${kind} ${JSON.stringify(target)}` : kind;
}
