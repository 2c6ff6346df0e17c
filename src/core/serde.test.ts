import { describe, expect, it } from "vitest";
import { SluiceError } from "./errors.js";
import { decodeValue, deserializeError, encodeValue, parseUserJson, serializeError } from "./serde.js";

describe("values", () => {
  it("round-trips JSON and keeps undefined as undefined", () => {
    expect(decodeValue(encodeValue({ a: [1, "x", null] }, "payload"))).toEqual({ a: [1, "x", null] });
    expect(encodeValue(undefined, "result")).toBeNull();
    expect(decodeValue(encodeValue(undefined, "result"))).toBeUndefined();
    expect(decodeValue(encodeValue(null, "result"))).toBeNull();
  });
  it("refuses values JSON cannot hold and oversize values", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => encodeValue(cyclic, "payload")).toThrow(/payload is not JSON-serialisable/);
    expect(() => encodeValue(() => 1, "step result")).toThrow(/step result is not JSON-serialisable \(a function\)/);
    expect(() => encodeValue(10n, "payload")).toThrow(/not JSON-serialisable/);
    expect(() => encodeValue("é".repeat(600), "payload", 1000)).toThrow(
      /payload is 1202 bytes, over the 1000-byte limit/,
    );
  });
  it("explains bad user JSON", () => {
    expect(() => parseUserJson("{orderId: 1}", "payload")).toThrow(/payload is not valid JSON .*example/);
  });
});

describe("errors", () => {
  it("round-trips code, cause and extra fields", () => {
    const inner = new Error("socket closed");
    const err = Object.assign(new SluiceError("BOOM", "it broke", { cause: inner }), { step_key: "fetch#2" });
    const back = deserializeError(serializeError(err)) as Error & { code: string; step_key: string };
    expect(back.message).toBe("it broke");
    expect(back.code).toBe("BOOM");
    expect(back.name).toBe("SluiceError");
    expect(back.step_key).toBe("fetch#2");
    expect((back.cause as Error).message).toBe("socket closed");
  });
  it("normalises non-errors", () => {
    expect(serializeError("plain")).toEqual({ name: "Error", message: "plain" });
    expect(serializeError({ x: 1 }).message).toBe('non-Error value thrown: {"x":1}');
  });
});
