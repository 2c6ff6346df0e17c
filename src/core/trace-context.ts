/**
 * W3C trace context (https://www.w3.org/TR/trace-context/) as Sluice stores it with a run:
 * the `traceparent` (and optional `tracestate`) active at enqueue, kept in the run's
 * `options` JSON so its attempts, children and subprocesses continue the same trace.
 * Pure: parsing and formatting only; spans are made in `worker/tracing.ts`.
 */

/** The trace context of a run: a W3C `traceparent` string and, when present, its `tracestate`. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/** The fields of a `traceparent`. */
export interface TraceParent {
  traceId: string;
  spanId: string;
  /** Trace flags (bit 0: sampled). */
  flags: number;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

/**
 * Reads a `traceparent`; null when it is not a valid one (wrong shape, version ff, all-zero ids).
 * Versions above 00 are accepted by their first four fields, as the W3C text asks.
 */
export function parseTraceparent(value: unknown): TraceParent | null {
  if (typeof value !== "string") return null;
  const m = TRACEPARENT.exec(value.trim());
  if (!m) return null;
  const [, version, traceId, spanId, flags, rest] = m;
  if (version === "ff" || (version === "00" && rest !== undefined)) return null;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return null;
  return { traceId: traceId!, spanId: spanId!, flags: parseInt(flags!, 16) };
}

/** Writes a version-00 `traceparent`. */
export function formatTraceparent(p: TraceParent): string {
  return `00-${p.traceId}-${p.spanId}-${(p.flags & 0xff).toString(16).padStart(2, "0")}`;
}

/** The trace context stored in a run's `options` JSON, or null (no options, no or a bad `traceparent`). */
export function traceCarrierOf(options: string | null | undefined): TraceCarrier | null {
  if (!options || !options.includes("traceparent")) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(options);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== "object") return null;
  const { traceparent, tracestate } = parsed as { traceparent?: unknown; tracestate?: unknown };
  if (!parseTraceparent(traceparent)) return null;
  return typeof tracestate === "string" && tracestate !== ""
    ? { traceparent: traceparent as string, tracestate }
    : { traceparent: traceparent as string };
}

/**
 * A run's `options` JSON with `carrier` added (replacing an earlier trace context); the
 * other keys are kept. Null carrier: `options` unchanged.
 */
export function withTraceCarrier(options: string | null | undefined, carrier: TraceCarrier | null): string | null {
  if (!carrier) return options ?? null;
  let base: Record<string, unknown> = {};
  if (options) {
    try {
      const parsed: unknown = JSON.parse(options);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) base = parsed as Record<string, unknown>;
    } catch {
      // not an object: it is replaced by one holding the trace context
    }
  }
  const next: Record<string, unknown> = { ...base, traceparent: carrier.traceparent };
  if (carrier.tracestate) next.tracestate = carrier.tracestate;
  else delete next.tracestate;
  return JSON.stringify(next);
}

/**
 * {@link withTraceCarrier} for the options of many runs (one enqueue call): each distinct
 * `options` value is rewritten once and its result shared, as the runs of one call mostly
 * carry the same options (often none).
 */
export function withTraceCarrierMany(
  options: readonly (string | null | undefined)[],
  carrier: TraceCarrier | null,
): (string | null)[] {
  const done = new Map<string | null, string | null>();
  return options.map((o) => {
    const key = o ?? null;
    let next = done.get(key);
    if (next === undefined) done.set(key, (next = withTraceCarrier(key, carrier)));
    return next;
  });
}

/** The environment variables a subprocess reads its trace context from (`TRACEPARENT`, `TRACESTATE`). */
export function traceEnv(carrier: TraceCarrier | null): Record<string, string> {
  if (!carrier) return {};
  return carrier.tracestate
    ? { TRACEPARENT: carrier.traceparent, TRACESTATE: carrier.tracestate }
    : { TRACEPARENT: carrier.traceparent };
}

/**
 * The trace context a process was started in (`TRACEPARENT`, `TRACESTATE`: what Sluice gives its
 * subprocesses, and what CI systems and `otel-cli` set), or null without a valid one.
 */
export function traceCarrierFromEnv(env: Record<string, string | undefined>): TraceCarrier | null {
  const traceparent = env.TRACEPARENT?.trim();
  if (!traceparent || !parseTraceparent(traceparent)) return null;
  const tracestate = env.TRACESTATE?.trim();
  return tracestate ? { traceparent, tracestate } : { traceparent };
}
