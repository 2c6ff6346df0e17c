import { describe, expect, it } from "vitest";
import { traceIdOfOptions, traceIdOfTraceparent, traceUrl } from "./trace-id.js";

const TP = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

describe("trace ids", () => {
  it("takes the second field of a valid traceparent", () => {
    expect(traceIdOfTraceparent(TP)).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(traceIdOfOptions(JSON.stringify({ timeoutMs: 5, traceparent: TP }))).toBe(
      "0af7651916cd43dd8448eb211c80319c",
    );
  });

  it("is null for anything else", () => {
    for (const bad of [
      undefined,
      42,
      "",
      "00-abc-def-01",
      TP.toUpperCase(),
      `00-${"0".repeat(32)}-b7ad6b7169203331-01`,
    ])
      expect(traceIdOfTraceparent(bad)).toBeNull();
    for (const bad of [null, "", "not json", "[]", "null", JSON.stringify({ traceparent: 1 }), "{}"])
      expect(traceIdOfOptions(bad)).toBeNull();
  });

  it("fills a URL template, or gives no link without one", () => {
    expect(traceUrl("https://jaeger/trace/{traceId}", "ab12")).toBe("https://jaeger/trace/ab12");
    expect(traceUrl("https://t/{traceId}?q={traceId}", "ab")).toBe("https://t/ab?q=ab");
    expect(traceUrl("https://jaeger/trace/", "ab")).toBeNull();
    expect(traceUrl(undefined, "ab")).toBeNull();
    expect(traceUrl("", "ab")).toBeNull();
  });
});
