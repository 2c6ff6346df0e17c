/**
 * The trace a run belongs to: the W3C `traceparent` stored in the run's `options` JSON
 * (`{"traceparent": "00-<trace id>-<span id>-<flags>"}`), and the link to it in a trace
 * viewer through a URL template such as `https://jaeger.example/trace/{traceId}`.
 */

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;
const ZERO_TRACE = "0".repeat(32);

/** The trace id (32 lowercase hex digits) of a `traceparent`, or null when it is not a valid one. */
export function traceIdOfTraceparent(traceparent: unknown): string | null {
  if (typeof traceparent !== "string") return null;
  const m = TRACEPARENT.exec(traceparent.trim());
  return m && m[1] !== ZERO_TRACE ? m[1]! : null;
}

/** The trace id of a run from its stored `options` JSON, or null (no options, not JSON, no valid traceparent). */
export function traceIdOfOptions(options: string | null): string | null {
  if (!options) return null;
  try {
    const parsed = JSON.parse(options) as unknown;
    if (!parsed || typeof parsed !== "object") return null;
    return traceIdOfTraceparent((parsed as { traceparent?: unknown }).traceparent);
  } catch {
    return null;
  }
}

/**
 * The link to a trace: `template` with every `{traceId}` replaced; null without a template
 * or when it has no `{traceId}` (a link that would not name the trace).
 */
export function traceUrl(template: string | null | undefined, traceId: string): string | null {
  if (!template || !template.includes("{traceId}")) return null;
  return template.split("{traceId}").join(encodeURIComponent(traceId));
}
