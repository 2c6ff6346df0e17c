/** Helpers for checking finished spans: by name, parentage and trace id. */
import { expect } from "vitest";

/** What the checks read of a finished span (an SDK `ReadableSpan` or one decoded from OTLP). */
export interface SpanView {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  attributes: Record<string, unknown>;
}

/** Spans with `name` (exact, or starting with it when it ends in a space). */
function named(spans: SpanView[], name: string): SpanView[] {
  return spans.filter((s) => (name.endsWith(" ") ? s.name.startsWith(name) : s.name === name));
}

/** The one span with this name and these attributes. */
export function one(spans: SpanView[], name: string, attrs: Record<string, unknown> = {}): SpanView {
  const found = named(spans, name).filter((s) => Object.entries(attrs).every(([k, v]) => s.attributes[k] === v));
  expect(found, `one span ${name} ${JSON.stringify(attrs)} among ${spans.map((s) => s.name).join(", ")}`).toHaveLength(
    1,
  );
  return found[0]!;
}

/** The parent of `span` among `spans` (fails when it is not there). */
export function parentOf(spans: SpanView[], span: SpanView): SpanView {
  const parent = spans.find((s) => s.spanId === span.parentSpanId && s.traceId === span.traceId);
  expect(parent, `parent of ${span.name} (${span.parentSpanId})`).toBeDefined();
  return parent!;
}

/** Names of the ancestors of `span`, nearest first, up to the root. */
export function ancestry(spans: SpanView[], span: SpanView): string[] {
  const names: string[] = [];
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (let s = byId.get(span.parentSpanId ?? ""); s; s = byId.get(s.parentSpanId ?? "")) names.push(s.name);
  return names;
}
