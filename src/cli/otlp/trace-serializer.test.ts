import { createTraceState, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes } from "@opentelemetry/api";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-node";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeTraceRequest } from "../../../test/helpers/otlp-proto.js";
import { PooledIdGenerator } from "./id-generator.js";
import { protobufTraceSerializer } from "./trace-exporter.js";

/** The SDK's bytes for `spans`, and Sluice's. */
function both(spans: ReadableSpan[]): { sdk: Buffer; ours: Buffer } {
  return {
    sdk: Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!),
    ours: Buffer.from(protobufTraceSerializer().serializeRequest(spans)!),
  };
}

/** A provider recording into memory, with a resource of its own and tight limits (for dropped counts). */
function recorder(service: string, extra: Attributes = {}) {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": service, ...extra }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    spanLimits: { attributeCountLimit: 12, eventCountLimit: 3, linkCountLimit: 2, attributePerEventCountLimit: 4 },
  });
  return { exporter, provider };
}

const REMOTE = {
  traceId: "0af7651916cd43dd8448eb211c80319c",
  spanId: "b7ad6b7169203331",
  traceFlags: 1,
  isRemote: true,
};

/** Spans of every shape the SDK records: kinds, statuses, events, links, every attribute type, remote parents, trace state, dropped counts, two resources and three scopes. */
function variedSpans(): ReadableSpan[] {
  const a = recorder("svc-a", { "service.instance.id": "42", "host.arch": ["x64", "arm64"] });
  const b = recorder("svc-ü-b");
  const t1 = a.provider.getTracer("sluice");
  const t2 = a.provider.getTracer("other", "1.2.3", { schemaUrl: "https://opentelemetry.io/schemas/1.21.0" });
  const t3 = b.provider.getTracer("b-scope", "0.0.1");
  const remoteParent = trace.setSpanContext(ROOT_CONTEXT, REMOTE);
  const tracestated = trace.setSpanContext(ROOT_CONTEXT, {
    ...REMOTE,
    traceState: createTraceState("vendor=a1b2,other=x"),
  });
  const root = t1.startSpan("run wf", {
    kind: SpanKind.CONSUMER,
    attributes: {
      "sluice.run.id": "01a2b3c4-0000-7000-8000-000000000001",
      "sluice.run.attempt": 1,
      neg: -5,
      big: 2 ** 40,
      huge: 2 ** 62,
      maxSafe: Number.MAX_SAFE_INTEGER,
      dbl: 3.25,
      tiny: -1e-300,
      yes: true,
      no: false,
      unicode: "héllo wörld 🚀 中文",
      long: "x".repeat(300) + "é".repeat(50),
    },
  });
  const parent = trace.setSpan(ROOT_CONTEXT, root);
  for (let i = 0; i < 5; i++) {
    const step = t1.startSpan(
      `step step-${i}`,
      { attributes: { "sluice.step.key": `step-${i}`, "sluice.step.attempt": 1 } },
      parent,
    );
    if (i === 2) {
      step.recordException(new Error("boom ⚡"));
      step.setStatus({ code: SpanStatusCode.ERROR, message: "step failed: boom ⚡" });
    }
    step.end();
  }
  root.addEvent("plain");
  root.addEvent("with attrs", { k: "v", n: 7, arr: [1, 2, 3] }, [1700000000, 123456789]);
  root.setStatus({ code: SpanStatusCode.OK });
  root.end([1700000001, 999999999]);
  const arrays = t2.startSpan(
    "arrays",
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        strs: ["a", "", "ünï", "x".repeat(200)],
        ints: [0, -1, 2 ** 33, 127, 128, 16384],
        doubles: [0.5, -2.75, 1.5e-7], // (integral doubles beyond int64: the hand-made test; the SDK's JSON writes them as ints)
        bools: [true, false],
        withNulls: ["a", null, undefined, "b"] as unknown as string[],
        empty: [],
      },
      links: [
        { context: REMOTE, attributes: { "link.kind": "follows", n: 1 } },
        { context: { ...REMOTE, spanId: "00f067aa0ba902b7", traceFlags: 0, isRemote: false } },
        { context: REMOTE }, // beyond linkCountLimit: dropped
      ],
    },
    remoteParent,
  );
  for (let i = 0; i < 5; i++) arrays.addEvent(`e${i}`, { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 }); // events and their attributes beyond the limits
  for (let i = 0; i < 20; i++) arrays.setAttribute(`extra.${i}`, i); // beyond attributeCountLimit
  arrays.end();
  const stated = t3.startSpan("tracestate child", { kind: SpanKind.CLIENT }, tracestated);
  stated.setStatus({ code: SpanStatusCode.ERROR });
  stated.end();
  t3.startSpan("server", { kind: SpanKind.SERVER, root: true }).end();
  t1.startSpan("internal", { kind: SpanKind.INTERNAL }).end();
  const spans = [...a.exporter.getFinishedSpans(), ...b.exporter.getFinishedSpans()];
  // Interleave resources and scopes so grouping is exercised, not just pass-through order.
  return spans.sort((x, y) => x.name.localeCompare(y.name));
}

/** A span built by hand (what the SDK's sanitizer would refuse: bytes, maps, nested arrays). */
function handMade(attributes: Record<string, unknown>, base: ReadableSpan): ReadableSpan {
  return { ...base, spanContext: base.spanContext, attributes: attributes as Attributes, name: "hand-made" };
}

/** Drops what proto3 leaves out (empty strings and lists, zeros, undefined) outside AnyValue, whose oneof keeps a zero. */
function normalize(v: unknown, inAnyValue = false): unknown {
  if (Array.isArray(v)) return v.map((x) => normalize(x));
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    const isAny = [
      "stringValue",
      "intValue",
      "boolValue",
      "doubleValue",
      "arrayValue",
      "kvlistValue",
      "bytesValue",
    ].some((k) => k in v);
    for (const [k, x] of Object.entries(v)) {
      if (k === "intValue")
        out[k] = typeof x === "number" ? BigInt(x).toString() : String(x); // JSON: a number, exact as a double
      else if (
        !isAny &&
        !inAnyValue &&
        (x === undefined || x === "" || x === 0 || (Array.isArray(x) && x.length === 0))
      )
        continue;
      else out[k] = normalize(x, k === "value" || k === "values");
    }
    return out;
  }
  return v;
}

describe("Sluice's OTLP protobuf trace serializer", () => {
  it("writes the same bytes as the SDK's ProtobufTraceSerializer for varied spans", () => {
    const spans = variedSpans();
    expect(spans.length).toBeGreaterThan(8);
    expect(new Set(spans.map((s) => s.resource)).size).toBe(2);
    expect(spans.some((s) => s.droppedAttributesCount > 0 && s.droppedEventsCount > 0 && s.droppedLinksCount > 0)).toBe(
      true,
    );
    const { sdk, ours } = both(spans);
    expect(ours.length).toBeGreaterThan(1000);
    expect(ours.equals(sdk)).toBe(true);
    // Each span alone, and the empty request.
    for (const s of spans) expect(both([s]).ours.equals(both([s]).sdk)).toBe(true);
    expect(both([]).ours.length).toBe(0);
  });

  it("decodes to what the SDK's JSON serializer says (an independent decoder)", () => {
    const spans = variedSpans();
    const decoded = decodeTraceRequest(protobufTraceSerializer().serializeRequest(spans)!);
    const json = JSON.parse(Buffer.from(JsonTraceSerializer.serializeRequest(spans)!).toString("utf8")) as unknown;
    expect(decoded.resourceSpans).toHaveLength(2);
    expect(normalize(decoded)).toEqual(normalize(json));
    const first = (decoded.resourceSpans[0] as { scopeSpans: { spans: { attributes?: unknown[] }[] }[] }).scopeSpans;
    expect(first.flatMap((s) => s.spans).length).toBeGreaterThan(0);
  });

  it("matches the SDK for values its sanitizer refuses: bytes, maps, nested arrays, int64 edges, NaN", () => {
    const base = variedSpans()[0]!;
    const span = handMade(
      {
        bytes: new Uint8Array([0, 1, 255]),
        map: { a: 1, b: { c: ["x", 2, true] }, d: null },
        nested: [[1, 2], ["a"], []],
        min64: -(2 ** 63),
        max64: 2 ** 63,
        beyondInt64: [1e21, -1e21],
        aboveSafe: 2 ** 60 + 2 ** 10,
        nan: NaN,
        inf: -Infinity,
        negZero: -0,
        fn: (() => 1) as unknown,
      },
      base,
    );
    const { sdk, ours } = both([span, base]);
    expect(ours.equals(sdk)).toBe(true);
  });

  it("matches the SDK for random attributes, names and times (property)", () => {
    const base = variedSpans().find((s) => s.name === "internal")!;
    const scalar = fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 60 }),
      fc.string({ unit: "binary", maxLength: 20 }),
      fc.integer(),
      fc.maxSafeInteger(),
      fc.double(),
      fc.boolean(),
    );
    const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 6 }));
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 30 }), value, { maxKeys: 12 }),
        fc.string({ unit: "grapheme", maxLength: 200 }),
        fc.integer({ min: 0, max: 2 ** 34 }),
        fc.integer({ min: 0, max: 999_999_999 }),
        (attributes, name, seconds, nanos) => {
          const span: ReadableSpan = {
            ...base,
            spanContext: base.spanContext,
            name,
            attributes: attributes as Attributes,
            startTime: [seconds, nanos],
            endTime: [seconds + 1, nanos],
          };
          const { sdk, ours } = both([span]);
          expect(ours.equals(sdk)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps no state between requests: a request's bytes stay intact while the next is written", () => {
    const serializer = protobufTraceSerializer();
    const spans = variedSpans();
    const first = serializer.serializeRequest(spans)!;
    const copy = Buffer.from(first);
    serializer.serializeRequest(spans.slice(0, 2));
    serializer.serializeRequest(spans.reverse());
    expect(Buffer.from(first).equals(copy)).toBe(true);
  });

  it("grows past its scratch buffer for a large batch", () => {
    const spans = variedSpans();
    const many = Array.from({ length: 400 }, (_, i) => spans[i % spans.length]!);
    const { sdk, ours } = both(many);
    expect(ours.length).toBeGreaterThan(64 * 1024);
    expect(ours.equals(sdk)).toBe(true);
    // A request past the 4 MB the writer keeps between requests, then a small one with the same writer.
    const serializer = protobufTraceSerializer();
    const huge = { ...spans[0]!, spanContext: spans[0]!.spanContext, attributes: { big: "ü".repeat(3_000_000) } };
    const hugeBytes = Buffer.from(serializer.serializeRequest([huge])!);
    expect(hugeBytes.length).toBeGreaterThan(6_000_000);
    expect(hugeBytes.equals(Buffer.from(ProtobufTraceSerializer.serializeRequest([huge])!))).toBe(true);
    expect(Buffer.from(serializer.serializeRequest(spans)!).equals(both(spans).sdk)).toBe(true);
  });
});

describe("PooledIdGenerator", () => {
  it("makes lowercase hex ids of the W3C sizes, distinct, never all zero", () => {
    const ids = new PooledIdGenerator();
    const traces = Array.from({ length: 1000 }, () => ids.generateTraceId());
    const spans = Array.from({ length: 1000 }, () => ids.generateSpanId());
    expect(traces.every((t) => /^[0-9a-f]{32}$/.test(t) && !/^0+$/.test(t))).toBe(true);
    expect(spans.every((s) => /^[0-9a-f]{16}$/.test(s) && !/^0+$/.test(s))).toBe(true);
    expect(new Set([...traces, ...spans]).size).toBe(2000);
  });

  it("is what the SDK takes as idGenerator", () => {
    const exporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({
      idGenerator: new PooledIdGenerator(),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    provider.getTracer("t").startSpan("s").end();
    const [span] = exporter.getFinishedSpans();
    expect(trace.isSpanContextValid(span!.spanContext())).toBe(true);
  });
});
