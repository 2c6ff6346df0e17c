import { describe, expect, it } from "vitest";
import { otelTarget } from "./otel.js";

describe("otelTarget", () => {
  it("is off without the flag or the variables, and when the SDK is disabled", () => {
    expect(otelTarget(undefined, {})).toBeNull();
    expect(
      otelTarget(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }),
    ).toBeNull();
    expect(
      otelTarget(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" }),
    ).toBeNull();
  });

  it("adds /v1/traces to a base URL and keeps a full one", () => {
    expect(otelTarget("http://127.0.0.1:4318", {})).toEqual({
      url: "http://127.0.0.1:4318/v1/traces",
      from: "--otel",
      protocol: "http/protobuf",
    });
    expect(otelTarget("https://otel.example/custom/path", {})?.url).toBe("https://otel.example/custom/path");
    expect(otelTarget(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" })).toEqual({
      url: "http://c:4318/v1/traces",
      from: "OTEL_EXPORTER_OTLP_ENDPOINT",
      protocol: "http/protobuf",
    });
    expect(otelTarget(undefined, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/x" })).toEqual({
      url: "http://c:4318/x",
      from: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
      protocol: "http/protobuf",
    });
  });

  it("prefers the flag, then the traces variable, then the base variable", () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://base:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:1/v1/traces",
    };
    expect(otelTarget("http://flag:4318", env)?.url).toBe("http://flag:4318/v1/traces");
    expect(otelTarget(undefined, env)?.url).toBe("http://t:1/v1/traces");
  });

  it("refuses what is not an http(s) URL, naming the setting", () => {
    expect(() => otelTarget("localhost:4318", {})).toThrow(/--otel "localhost:4318" is not an OTLP\/HTTP endpoint/);
    expect(() => otelTarget("", {})).toThrow(/INVALID_OTEL_ENDPOINT|not an OTLP/);
    expect(() => otelTarget(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "grpc://x" })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
  });

  it("exports http/protobuf by default, http/json when the standard variables ask, the traces one first", () => {
    const url = "http://c:4318";
    expect(otelTarget(url, {})?.protocol).toBe("http/protobuf");
    expect(otelTarget(url, { OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })?.protocol).toBe("http/json");
    expect(otelTarget(url, { OTEL_EXPORTER_OTLP_PROTOCOL: " HTTP/JSON " })?.protocol).toBe("http/json");
    expect(
      otelTarget(url, { OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" })
        ?.protocol,
    ).toBe("http/protobuf");
    expect(otelTarget(url, { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json" })?.protocol).toBe("http/json");
    // Tracing off: the protocol is not read.
    expect(otelTarget(undefined, { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toBeNull();
  });

  it("refuses a protocol it cannot export in, naming the variable and the choices", () => {
    expect(() => otelTarget("http://c:4318", { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is not supported: .*http\/protobuf \(the default\) or http\/json/,
    );
    try {
      otelTarget("http://c:4318", { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/xml" });
      expect.unreachable();
    } catch (err) {
      expect((err as { code?: string }).code).toBe("INVALID_OTEL_PROTOCOL");
    }
  });
});
