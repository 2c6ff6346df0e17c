import { describe, expect, it } from "vitest";
import {
  formatTraceparent,
  parseTraceparent,
  traceCarrierFromEnv,
  traceCarrierOf,
  traceEnv,
  withTraceCarrier,
  withTraceCarrierMany,
} from "./trace-context.js";

const TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("traceparent", () => {
  it("parses and formats a version-00 header", () => {
    const p = parseTraceparent(TP);
    expect(p).toEqual({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", flags: 1 });
    expect(formatTraceparent(p!)).toBe(TP);
  });

  it("refuses malformed, all-zero and version ff headers", () => {
    for (const bad of [
      "",
      "garbage",
      TP.toUpperCase(),
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
      `ff${TP.slice(2)}`,
      `${TP}-extra`,
      42,
      null,
    ])
      expect(parseTraceparent(bad)).toBeNull();
  });

  it("accepts a later version with extra fields", () => {
    expect(parseTraceparent(`01${TP.slice(2)}-future`)?.spanId).toBe("00f067aa0ba902b7");
  });
});

describe("trace context in run options", () => {
  it("adds the context and keeps the other options", () => {
    const options = withTraceCarrier(JSON.stringify({ timeoutMs: 5000 }), { traceparent: TP, tracestate: "a=1" });
    expect(JSON.parse(options!)).toEqual({ timeoutMs: 5000, traceparent: TP, tracestate: "a=1" });
    expect(traceCarrierOf(options)).toEqual({ traceparent: TP, tracestate: "a=1" });
  });

  it("leaves options alone without a context and reads none from options without one", () => {
    expect(withTraceCarrier(null, null)).toBeNull();
    expect(withTraceCarrier('{"x":1}', null)).toBe('{"x":1}');
    expect(traceCarrierOf('{"timeoutMs":1}')).toBeNull();
    expect(traceCarrierOf('{"traceparent":"nope"}')).toBeNull();
    expect(traceCarrierOf("{not json traceparent")).toBeNull();
    expect(traceCarrierOf(null)).toBeNull();
  });

  it("replaces an earlier context and drops its stale tracestate", () => {
    const first = withTraceCarrier(null, { traceparent: TP, tracestate: "a=1" });
    const other = "00-11111111111111111111111111111111-2222222222222222-00";
    expect(JSON.parse(withTraceCarrier(first, { traceparent: other })!)).toEqual({ traceparent: other });
  });

  it("stamps many runs' options at once, each the same as one at a time", () => {
    const carrier = { traceparent: TP };
    const options = [null, undefined, '{"timeoutMs":5}', null, '{"timeoutMs":5}', '{"timeoutMs":7}'];
    const stamped = withTraceCarrierMany(options, carrier);
    expect(stamped).toEqual(options.map((o) => withTraceCarrier(o, carrier)));
    expect(JSON.parse(stamped[2]!)).toEqual({ timeoutMs: 5, traceparent: TP });
    expect(withTraceCarrierMany(['{"x":1}', null], null)).toEqual(['{"x":1}', null]);
  });

  it("names the environment variables of a subprocess", () => {
    expect(traceEnv(null)).toEqual({});
    expect(traceEnv({ traceparent: TP })).toEqual({ TRACEPARENT: TP });
    expect(traceEnv({ traceparent: TP, tracestate: "a=1" })).toEqual({ TRACEPARENT: TP, TRACESTATE: "a=1" });
  });

  it("reads the context a process was started in, ignoring a bad one", () => {
    expect(traceCarrierFromEnv({ TRACEPARENT: TP, TRACESTATE: "a=1" })).toEqual({ traceparent: TP, tracestate: "a=1" });
    expect(traceCarrierFromEnv({ TRACEPARENT: TP })).toEqual({ traceparent: TP });
    expect(traceCarrierFromEnv({ TRACEPARENT: "junk", TRACESTATE: "a=1" })).toBeNull();
    expect(traceCarrierFromEnv({})).toBeNull();
  });
});
