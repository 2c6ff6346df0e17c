/**
 * The engine's OpenTelemetry spans, through `@opentelemetry/api` only: an application
 * that embeds Sluice and registers an SDK gets them, one that does not pays for no-op
 * calls. `sluice dev|worker|server --otel` registers the SDK (`cli/otel.ts`).
 *
 * The trace context a run continues is the one stored with it at enqueue (`traceparent`
 * in its `options` JSON, `core/trace-context.ts`): every claim of the run is a `run`
 * span under it, in whichever process claims it, and child runs store the context of
 * their `child` span, so one trace shows a whole fan-out or cascade.
 */
import {
  type Attributes,
  type Context,
  context,
  createTraceState,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
import {
  formatTraceparent,
  parseTraceparent,
  type TraceCarrier,
  traceCarrierOf,
  withTraceCarrier,
} from "../core/trace-context.js";
import { currentScope } from "../sdk/runtime.js";
import type { RunRecord } from "../store/types.js";

/** The instrumentation scope of Sluice's spans. */
const TRACER_NAME = "sluice";

/** Attribute names of Sluice's spans (namespaced `sluice.*`). */
export const ATTR = {
  runId: "sluice.run.id",
  workflow: "sluice.workflow",
  task: "sluice.task",
  queue: "sluice.queue",
  attempt: "sluice.run.attempt",
  claim: "sluice.run.claim",
  parentRunId: "sluice.run.parent_id",
  rootRunId: "sluice.run.root_id",
  workerId: "sluice.worker.id",
  outcome: "sluice.outcome",
  runCount: "sluice.enqueue.count",
  deduplicated: "sluice.enqueue.deduplicated",
  stepKey: "sluice.step.key",
  stepKind: "sluice.step.kind",
  stepAttempt: "sluice.step.attempt",
  wakeAfterMs: "sluice.park.wake_after_ms",
  childRunId: "sluice.child.run_id",
  childWorkflow: "sluice.child.workflow",
  subscriber: "sluice.pipeline.subscriber",
  producer: "sluice.pipeline.producer",
  decision: "sluice.pipeline.decision",
  reason: "sluice.pipeline.reason",
  partition: "sluice.pipeline.partition",
  depth: "sluice.pipeline.depth",
  dispatchedRunId: "sluice.pipeline.run_id",
  script: "sluice.pipeline.script",
  language: "sluice.pipeline.language",
} as const;

let current: { provider: TracerProvider; tracer: Tracer } | null = null;

/**
 * Sluice's tracer from the tracer provider registered now. Looked up for each span, not
 * once at import: the CLI bundle links its own copy of `@opentelemetry/api`, whose proxy
 * provider never hears of an SDK that `--otel` registers through node_modules' copy;
 * the registered provider itself is on `globalThis`, shared by every copy.
 */
function tracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (current?.provider !== provider) current = { provider, tracer: provider.getTracer(TRACER_NAME) };
  return current.tracer;
}

/** A run as the tracing needs it. */
type RunFacts = Pick<RunRecord, "id" | "workflow" | "task" | "attempt" | "options" | "parentId" | "rootId" | "queue">;

/** What an execution exposes to the tracing (its attempt span). */
interface Traced {
  readonly traceSpan: Span | null;
}

/**
 * The context a run's spans start under: the remote parent stored in its `options`. The runs of
 * one enqueue share one `options` string, so the last one read is remembered (a `Context` is
 * immutable): a batch's claims parse it once instead of once per run.
 */
let lastRunContext: { options: string | null; context: Context } | null = null;
function runContextOf(options: string | null): Context {
  if (lastRunContext?.options !== options) lastRunContext = { options, context: contextOf(traceCarrierOf(options)) };
  return lastRunContext.context;
}

/** The context whose span is the remote parent `carrier` names; the root context without one. */
function contextOf(carrier: TraceCarrier | null): Context {
  const parent = carrier ? parseTraceparent(carrier.traceparent) : null;
  if (!parent) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: parent.traceId,
    spanId: parent.spanId,
    traceFlags: parent.flags,
    isRemote: true,
    ...(carrier?.tracestate ? { traceState: createTraceState(carrier.tracestate) } : {}),
  });
}

/** The W3C context of `span`, to store with a run or hand to a subprocess; null when it has none (no SDK, no parent). */
export function carrierOf(span: Span | undefined | null): TraceCarrier | null {
  const sc = span?.spanContext();
  // Without an SDK every span is the no-op one with this very context: no need to validate its ids
  // (a hex scan per id, which a cold process runs interpreted, for every child of a fan-out).
  if (!sc || sc === INVALID_SPAN_CONTEXT || !trace.isSpanContextValid(sc)) return null;
  const traceparent = formatTraceparent({ traceId: sc.traceId, spanId: sc.spanId, flags: sc.traceFlags });
  const tracestate = sc.traceState?.serialize();
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/**
 * The parent of work started now: the active OpenTelemetry context when it holds a span,
 * else the attempt span of the Sluice execution this code runs in (when no context manager
 * is registered), else nothing.
 */
function currentParent(): Context {
  const active = context.active();
  if (trace.getSpan(active)) return active;
  const exec = currentScope()?.execution as Partial<Traced> | undefined;
  return exec?.traceSpan ? trace.setSpan(ROOT_CONTEXT, exec.traceSpan) : active;
}

/** The span of `currentParent()`, without making a context to hold it. */
function currentSpan(): Span | undefined {
  const span = trace.getSpan(context.active());
  if (span) return span;
  const exec = currentScope()?.execution as Partial<Traced> | undefined;
  return exec?.traceSpan ?? undefined;
}

/**
 * Starts the span of one enqueue call (`count` runs of `workflow`), under the caller's
 * `given` context (an HTTP `traceparent`) if valid, else the current parent; its context is
 * stored with the runs.
 */
export function startEnqueueSpan(workflow: string, count: number, given?: TraceCarrier): Span {
  const parent = given && parseTraceparent(given.traceparent) ? contextOf(given) : currentParent();
  return tracer().startSpan(
    `enqueue ${workflow}`,
    { kind: SpanKind.PRODUCER, attributes: { [ATTR.workflow]: workflow, [ATTR.runCount]: count } },
    parent,
  );
}

/** Ends an enqueue span: the run id (one run), whether it deduplicated, or the error. */
export function endEnqueueSpan(span: Span, result: { id: string; deduplicated: boolean }[] | Error): void {
  if (result instanceof Error) fail(span, result);
  else if (result.length === 1 && span.isRecording()) {
    span.setAttribute(ATTR.runId, result[0]!.id);
    span.setAttribute(ATTR.deduplicated, result[0]!.deduplicated);
  }
  span.end();
}

/** Starts the span of one claim of `run`, under the trace context stored with it. */
export function startAttemptSpan(run: RunFacts, claim: number, workerId: string): Span {
  const attributes: Attributes = {
    [ATTR.runId]: run.id,
    [ATTR.workflow]: run.workflow,
    [ATTR.attempt]: run.attempt,
    [ATTR.claim]: claim,
    [ATTR.queue]: run.queue,
    [ATTR.workerId]: workerId,
  };
  if (run.task) attributes[ATTR.task] = run.task;
  if (run.parentId) {
    attributes[ATTR.parentRunId] = run.parentId;
    attributes[ATTR.rootRunId] = run.rootId;
  }
  const name = run.task ? `run ${run.workflow}.${run.task}` : `run ${run.workflow}`;
  return tracer().startSpan(name, { kind: SpanKind.CONSUMER, attributes }, runContextOf(run.options));
}

/**
 * Ends a claim's span with how it ended: `outcome` is the run status written (`succeeded`,
 * `failed`, `cancelled`, `retry`), else the claim's end (`suspended`, `fenced`, `abandoned`).
 */
export function endAttemptSpan(span: Span, outcome: string, error?: { message: string } | null): void {
  span.setAttribute(ATTR.outcome, outcome);
  if (outcome === "failed" || outcome === "retry" || outcome === "abandoned")
    span.setStatus({ code: SpanStatusCode.ERROR, message: error?.message ?? outcome });
  span.end();
}

/**
 * Records something done to a run from outside its attempts (a cancel, an expired lease
 * ended) as a span named `name <workflow>` in the run's own trace (the context stored with
 * it), with the run's facts and `sluice.outcome`; an error status when `failed`.
 */
export function traceRunEvent(
  name: "cancel" | "reclaim",
  run: RunFacts,
  outcome: string,
  failed: { message: string } | null = null,
): void {
  const attributes: Attributes = {
    [ATTR.runId]: run.id,
    [ATTR.workflow]: run.workflow,
    [ATTR.attempt]: run.attempt,
    [ATTR.outcome]: outcome,
  };
  if (run.task) attributes[ATTR.task] = run.task;
  const target = run.task ? `${run.workflow}.${run.task}` : run.workflow;
  const span = tracer().startSpan(`${name} ${target}`, { attributes }, runContextOf(run.options));
  if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: failed.message });
  span.end();
}

/** Runs `fn` with `span` as the active span (for code that starts spans or enqueues inside it). */
export function withSpan<T>(span: Span, fn: () => T): T {
  return context.with(trace.setSpan(context.active(), span), fn);
}

/**
 * Runs one step body in a `step` span (child of the claim's span, which carries the run id,
 * workflow and attempt): the step key and step attempt as attributes, `sluice.outcome` =
 * `error` and an error status when the body throws (a span without them succeeded). Steps
 * are the most frequent spans, so they carry only what their parent does not: every
 * attribute costs the SDK several microseconds (`npm run bench -- --tracing`).
 *
 * When the parent records nothing (no SDK, or a trace its sampler dropped) the body runs in
 * the claim's context without a step span: a child of a non-recording parent records nothing
 * under every standard sampler (parent-based ones follow the parent, ratio ones decide by the
 * same trace id), and the context a child run or subprocess continues is the same trace with
 * the same sampled flag, so an unsampled trace costs its steps nothing.
 */
export function tracedStep<T>(
  exec: Traced & { run: RunFacts },
  key: string,
  stepAttempt: number,
  body: () => Promise<T>,
): Promise<T> {
  const active = context.active();
  // The claim's span is active when a context manager is registered; else it is set here.
  const activeSpan = trace.getSpan(active);
  const parentSpan = activeSpan ?? exec.traceSpan;
  if (!parentSpan?.isRecording()) return body();
  const parent = activeSpan ? active : trace.setSpan(active, parentSpan);
  const span = tracer().startSpan(
    `step ${key}`,
    { attributes: { [ATTR.stepKey]: key, [ATTR.stepAttempt]: stepAttempt } },
    parent,
  );
  let running: Promise<T>;
  try {
    running = context.with(trace.setSpan(parent, span), body);
  } catch (err) {
    failStep(span, err);
    throw err;
  }
  // Settled with `then` rather than an async wrapper: one promise less per step.
  return running.then(
    (value) => {
      span.end();
      return value;
    },
    (err: unknown) => {
      failStep(span, err);
      throw err;
    },
  );
}

/** Ends a step span whose body threw. */
function failStep(span: Span, err: unknown): void {
  span.setAttribute(ATTR.outcome, "error");
  fail(span, err);
  span.end();
}

/** A durable call that parks the run, as the tracing sees it (`worker/execution.ts` `PendingCall`). */
export interface ParkFacts {
  step?: { key: string; kind: string; wakeAfterMs?: number | null };
  child?: { id: string; workflow: string; task?: string | null; options?: string | null };
  wakeAfterMs?: number | null;
}

/**
 * Records a park of the run (sleep, wait, approval, a step retry later, waiting on children)
 * as a `park` span, and each child run as a `child` span whose context the child stores:
 * returns the child's options with that `traceparent`, or its options unchanged.
 */
export function tracePark(exec: Traced & { run: RunFacts }, call: ParkFacts): string | null | undefined {
  const parentSpan = exec.traceSpan;
  if (!parentSpan || !parentSpan.isRecording()) {
    // No SDK recording here: children still carry the run's own context, so a remote parent continues.
    if (!call.child) return undefined;
    return withTraceCarrier(call.child.options, carrierOf(parentSpan) ?? traceCarrierOf(exec.run.options));
  }
  const parent = trace.setSpan(ROOT_CONTEXT, parentSpan);
  const base: Attributes = { [ATTR.runId]: exec.run.id, [ATTR.workflow]: exec.run.workflow };
  if (call.step) {
    base[ATTR.stepKey] = call.step.key;
    base[ATTR.stepKind] = call.step.kind;
  }
  if (call.child) {
    const { child } = call;
    const target = child.task ? `${child.workflow}.${child.task}` : child.workflow;
    const span = tracer().startSpan(
      `child ${target}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: { ...base, [ATTR.childRunId]: child.id, [ATTR.childWorkflow]: child.workflow },
      },
      parent,
    );
    span.end();
    return withTraceCarrier(child.options, carrierOf(span));
  }
  const wake = call.wakeAfterMs ?? call.step?.wakeAfterMs;
  if (typeof wake === "number") base[ATTR.wakeAfterMs] = wake;
  tracer()
    .startSpan(`park ${call.step?.kind ?? "resume"}`, { attributes: base }, parent)
    .end();
  return undefined;
}

/** Runs `fn` in a span named `name` under the current parent (a pipeline member's script, …); records a throw. */
export async function inSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  const span = tracer().startSpan(name, { attributes }, currentParent());
  try {
    return await withSpan(span, fn);
  } catch (err) {
    fail(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/** Starts a `cascade` span for the dispatch of a pipeline run's writes (child of the active span). */
export function startCascadeSpan(producer: string, runId: string): Span {
  return tracer().startSpan(
    `cascade ${producer}`,
    { attributes: { [ATTR.producer]: producer, [ATTR.runId]: runId } },
    currentParent(),
  );
}

/** One dispatch decision of a cascade, as a `dispatch` span under `cascade`. */
export function traceDecision(
  cascade: Span,
  d: { subscriber: string; outcome: string; run?: string; reason?: string; partition?: string | null; depth?: number },
): void {
  if (!cascade.isRecording()) return;
  const attributes: Attributes = {
    [ATTR.subscriber]: d.subscriber,
    [ATTR.decision]: d.outcome,
  };
  if (d.depth !== undefined) attributes[ATTR.depth] = d.depth;
  if (d.run) attributes[ATTR.dispatchedRunId] = d.run;
  if (d.reason) attributes[ATTR.reason] = d.reason;
  if (d.partition) attributes[ATTR.partition] = d.partition;
  tracer().startSpan(`dispatch ${d.subscriber}`, { attributes }, trace.setSpan(ROOT_CONTEXT, cascade)).end();
}

/** The trace context a run's subprocess (a Python or Bash script) continues: the active span's, else the run's own. */
export function subprocessCarrier(run: Pick<RunRecord, "options"> | null): TraceCarrier | null {
  return carrierOf(currentSpan()) ?? traceCarrierOf(run?.options);
}

/** The trace and span ids of the active span (sampled or not), for log lines; empty when there is none. */
export function activeTraceIds(): { trace_id?: string; span_id?: string } {
  const sc = currentSpan()?.spanContext();
  if (!sc || !trace.isSpanContextValid(sc)) return {};
  return { trace_id: sc.traceId, span_id: sc.spanId };
}

function fail(span: Span, err: unknown): void {
  const e = err instanceof Error ? err : new Error(String(err));
  span.recordException(e);
  span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
}
