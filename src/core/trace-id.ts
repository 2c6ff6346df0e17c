/**
 * The trace a run belongs to: the W3C `traceparent` stored in the run's `options` JSON
 * (`{"traceparent": "00-<trace id>-<span id>-<flags>"}`), and the link to it in a trace
 * viewer through a URL template such as `https://jaeger.example/trace/{traceId}`.
 */
import { parseTraceparent, traceCarrierOf } from "./trace-context.js";

/** The trace id (32 lowercase hex digits) of a `traceparent`, or null when it is not a valid one. */
export function traceIdOfTraceparent(traceparent: unknown): string | null {
  return parseTraceparent(traceparent)?.traceId ?? null;
}

/** The trace id of a run from its stored `options` JSON, or null (no options, not JSON, no valid traceparent). */
export function traceIdOfOptions(options: string | null): string | null {
  return traceIdOfTraceparent(traceCarrierOf(options)?.traceparent);
}

/**
 * The link to a trace: `template` with every `{traceId}` replaced; null without a template
 * or when it has no `{traceId}` (a link that would not name the trace).
 */
export function traceUrl(template: string | null | undefined, traceId: string): string | null {
  if (!template || !template.includes("{traceId}")) return null;
  return template.split("{traceId}").join(encodeURIComponent(traceId));
}
