/**
 * The durable primitives of the Tako-style context (`ctx.run`, `ctx.sleep`,
 * `ctx.waitFor`), written against an {@link Execution}. The Windmill-style free
 * functions build on the same pieces.
 */
import { backoffDelay, DEFAULT_STEP_RETRIES, resolveBackoff, STEP_BACKOFF } from "../core/backoff.js";
import { decodeValue } from "../core/serde.js";
import type { StepContext, StepOptions } from "../sdk/context.js";
import { InvalidInputError } from "../sdk/errors.js";
import { runInScope } from "../sdk/runtime.js";
import { validateBackoff, validateRetries } from "../sdk/workflow.js";
import { isTerminalError, markTerminal } from "./control.js";
import { RunStepContext } from "./step-context.js";
import type { Execution } from "./execution.js";
import { crashAt } from "./crash-points.js";
import { tracedStep } from "./tracing.js";

const timer = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** `ctx.run(name, fn, options)`: run once, checkpoint the result, replay it afterwards. */
export async function runStep<T>(
  exec: Execution,
  name: string,
  fn: (step: StepContext) => T | Promise<T>,
  options: StepOptions = {},
): Promise<T> {
  requireName(name, "ctx.run");
  // The defaults are valid as they are: only options the call gives are checked (no message,
  // closure or policy object built per step for a plain `ctx.run(name, fn)`).
  const givenRetries = options.retries ?? null;
  const retries =
    givenRetries === null ? DEFAULT_STEP_RETRIES : validateRetries(givenRetries, `retries of step "${name}"`);
  const givenBackoff = options.backoff ?? null;
  const backoff = givenBackoff === null ? STEP_BACKOFF : resolveBackoff(givenBackoff, STEP_BACKOFF);
  if (givenBackoff !== null) markOnThrow(() => validateBackoff(backoff, `backoff of step "${name}"`));
  const { key, position } = exec.nextCall(name);
  const rec = exec.lookup(key, "step", null, position);
  if (rec?.status === "done") return decodeValue<T>(rec.value);
  let spent = rec?.attempts ?? 0;
  if (rec?.status === "pending" && rec.wakeAt !== null) {
    const wait = rec.wakeAt - exec.now();
    if (wait > exec.deps.inlineSleepMs) return exec.defer<T>({ wakeAfterMs: wait });
    if (wait > 0) await timer(wait);
  }
  // The body's real start (a rewrite of a pending record keeps the first one).
  const startedAt = exec.now();
  for (;;) {
    exec.assertActive();
    const stepAttempt = ++spent;
    try {
      // The body and its save are inline work a suspension waits for (as `exec.track` counts it,
      // without a wrapper closure and promise per step); it ends before a failure is handled below.
      exec.beginInline();
      try {
        // The body's effects may depend on earlier steps' results: their checkpoints are durable first.
        if (exec.aheadPending) {
          await exec.aheadSettled();
          exec.assertActive();
        }
        const value = await tracedStep(exec, key, stepAttempt, () => runBody(exec, key, stepAttempt, fn));
        crashAt("after-step-body");
        let encoded: string | null;
        try {
          encoded = exec.encode(value, `result of step "${key}"`);
        } catch (err) {
          throw markTerminal(err);
        }
        // Written ahead: the value returns now, what the run does next is ordered after the
        // checkpoint (the outcome in its transaction, anything else after its answer).
        exec.saveAhead({
          key,
          kind: "step",
          target: null,
          status: "done",
          value: encoded,
          attempts: stepAttempt,
          position,
          startedAt,
        });
        return decodeValue<T>(encoded);
      } finally {
        exec.endInline();
      }
    } catch (err) {
      if (!exec.active) throw err;
      if (isTerminalError(err) || options.retry === false || stepAttempt > retries)
        exec.deps.metrics?.step(exec.run.workflow, "error", (exec.now() - startedAt) / 1000);
      if (isTerminalError(err)) throw err;
      if (options.retry === false) throw markTerminal(err);
      if (stepAttempt > retries) throw err;
      const delay = backoffDelay(backoff, stepAttempt, exec.deps.random);
      exec.log(
        "warn",
        `step "${key}" attempt ${stepAttempt} failed (${(err as Error)?.message ?? String(err)}); retrying in ${delay} ms`,
        key,
      );
      if (delay > exec.deps.inlineSleepMs) {
        return exec.defer<T>({
          step: {
            key,
            kind: "step",
            target: null,
            status: "pending",
            attempts: stepAttempt,
            wakeAfterMs: delay,
            position,
            startedAt,
          },
          wakeAfterMs: delay,
        });
      }
      await timer(delay);
    }
  }
}

function runBody<T>(
  exec: Execution,
  key: string,
  stepAttempt: number,
  fn: (step: StepContext) => T | Promise<T>,
): Promise<T> {
  const stepCtx = new RunStepContext(exec, key, stepAttempt);
  const scope = { execution: exec, stepKey: key, runtime: exec.deps.runtime };
  // One promise for the body, sync or not (a body that throws at once rejects it, as before).
  return runInScope(scope, () => {
    try {
      return Promise.resolve(fn(stepCtx));
    } catch (err) {
      return Promise.reject(err);
    }
  });
}

/**
 * Durable sleep. Short sleeps (up to `inlineMaxMs`) wait in-process after
 * recording their wake time, then are recorded done (so a finished run shows their
 * real start and end); longer ones park the run.
 */
export async function sleepFor(exec: Execution, name: string, ms: number, inlineMaxMs: number): Promise<void> {
  const { key, position } = exec.nextCall(name);
  const rec = exec.lookup(key, "sleep", null, position);
  if (rec?.status === "done") return;
  const remaining = rec ? (rec.wakeAt ?? 0) - exec.now() : ms;
  const done = () => exec.track(() => exec.save([{ key, kind: "sleep", target: null, status: "done", position }]));
  if (remaining <= 0) return done();
  if (remaining <= inlineMaxMs) {
    if (!rec)
      await exec.save([
        {
          key,
          kind: "sleep",
          target: null,
          status: "pending",
          wakeAfterMs: remaining,
          position,
          startedAt: exec.now(),
        },
      ]);
    await timer(remaining);
    exec.assertActive();
    return done();
  }
  return exec.defer<void>({
    step: rec ? undefined : { key, kind: "sleep", target: null, status: "pending", wakeAfterMs: remaining, position },
    wakeAfterMs: remaining,
  });
}

/** `ctx.waitFor(event, { timeout })`: park until a signal, or return null after the timeout. */
export async function waitForEvent<T>(exec: Execution, event: string, timeoutMs: number | null): Promise<T | null> {
  requireName(event, "ctx.waitFor");
  const { key, position } = exec.nextCall(event);
  const rec = exec.lookup(key, "wait", null, position);
  if (rec?.status === "done") return (decodeValue<T>(rec.value) ?? null) as T | null;
  if (rec) {
    const left = rec.wakeAt === null ? null : rec.wakeAt - exec.now();
    if (left !== null && left <= 0) {
      await exec.save([{ key, kind: "wait", target: null, status: "done", value: null, event, position }]);
      return null;
    }
    return exec.defer<T | null>({ wakeAfterMs: left });
  }
  return exec.defer<T | null>({
    step: { key, kind: "wait", target: null, status: "pending", event, wakeAfterMs: timeoutMs, position },
    wakeAfterMs: timeoutMs,
  });
}

function requireName(name: unknown, what: string): void {
  if (typeof name !== "string" || name.length === 0) {
    throw markTerminal(
      new InvalidInputError(`${what} needs a stable, non-empty name as its first argument (it is the checkpoint key)`),
    );
  }
}

function markOnThrow<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw markTerminal(err);
  }
}
