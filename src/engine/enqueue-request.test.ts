import { describe, expect, it } from "vitest";
import { buildEnqueueRequest, parseRunAt, perRunOptions } from "./enqueue-request.js";

const wf = { name: "fulfill-order", queue: "default", maxAttempts: 5, backoff: { base: 1000, max: 3_600_000 } };

describe("buildEnqueueRequest", () => {
  it("applies workflow defaults and generates an id", () => {
    const r = buildEnqueueRequest(wf, { orderId: "ord_123" });
    expect(r).toMatchObject({
      workflow: "fulfill-order",
      queue: "default",
      maxAttempts: 5,
      dedupe: false,
      payload: '{"orderId":"ord_123"}',
    });
    expect(r.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.runAt).toBeUndefined();
  });
  it("lets per-enqueue retries win and keeps a caller id for deduplication", () => {
    const r = buildEnqueueRequest(wf, {}, { retries: 6, id: "fulfill:ord_123", runAt: new Date(Date.UTC(2030, 0, 1)) });
    expect(r).toMatchObject({ maxAttempts: 7, id: "fulfill:ord_123", dedupe: true, runAt: Date.UTC(2030, 0, 1) });
  });
  it("carries a concurrency limit and refuses a bad one with INVALID_CONCURRENCY", () => {
    expect(buildEnqueueRequest(wf, {}, { concurrency: { key: "cards", limit: 2 } }).concurrency).toEqual({
      key: "cards",
      limit: 2,
      windowMs: null,
    });
    expect(buildEnqueueRequest(wf, {}).concurrency).toBeUndefined();
    // The window is a Duration (issue 10); `windowMs` is its deprecated alias, the new name wins.
    expect(buildEnqueueRequest(wf, {}, { concurrency: { key: "k", limit: 1, window: "1m" } }).concurrency).toEqual({
      key: "k",
      limit: 1,
      windowMs: 60_000,
    });
    expect(
      buildEnqueueRequest(wf, {}, { concurrency: { key: "k", limit: 1, window: 500, windowMs: 9 } }).concurrency,
    ).toMatchObject({ windowMs: 500 });
    expect(() => buildEnqueueRequest(wf, {}, { concurrency: { key: "k", limit: 1, window: "soon" } })).toThrow(
      expect.objectContaining({ code: "INVALID_DURATION" }),
    );
    expect(() => buildEnqueueRequest(wf, {}, { concurrency: { key: "", limit: 1 } })).toThrow(/non-empty key/);
    expect(() => buildEnqueueRequest(wf, {}, { concurrency: { key: "k", limit: 0 } })).toThrow(
      expect.objectContaining({ code: "INVALID_CONCURRENCY" }),
    );
    expect(() => buildEnqueueRequest(wf, {}, { concurrency: { key: "k", limit: 1, windowMs: 0.5 } })).toThrow(
      /windowMs/,
    );
  });
  it("rejects bad ids, retries, priority and payloads with clear messages", () => {
    expect(() => buildEnqueueRequest(wf, {}, { id: "" })).toThrow(/1–255 bytes/);
    expect(() => buildEnqueueRequest(wf, {}, { retries: -1 })).toThrow(/retries must be a whole number/);
    expect(() => buildEnqueueRequest(wf, {}, { priority: 1.5 })).toThrow(/priority must be a whole number/);
    expect(() => buildEnqueueRequest(wf, "x".repeat(2000), {}, 1000)).toThrow(/over the 1000-byte limit/);
    expect(() => buildEnqueueRequest(wf, { f: () => 1, s: Symbol("x") } as unknown, {})).not.toThrow();
    expect(() => buildEnqueueRequest(wf, 10n as unknown, {})).toThrow(/not JSON-serialisable/);
  });
});

describe("parseRunAt", () => {
  it("accepts dates, numbers and ISO strings and rejects the rest", () => {
    expect(parseRunAt("2026-12-01T09:00:00Z")).toBe(Date.UTC(2026, 11, 1, 9));
    expect(parseRunAt(5)).toBe(5);
    expect(() => parseRunAt("tomorrow-ish")).toThrow(/invalid runAt "tomorrow-ish"/);
  });
});

describe("perRunOptions", () => {
  it("shares the options and gives each payload its own id from `ids`", () => {
    expect(perRunOptions(2, { priority: 3, ids: ["a", "b"] })).toEqual([
      { priority: 3, id: "a" },
      { priority: 3, id: "b" },
    ]);
    expect(perRunOptions(2, { priority: 1 })).toEqual([{ priority: 1 }, { priority: 1 }]);
    expect(perRunOptions(1, { id: "only" })).toEqual([{ id: "only" }]);
  });
  it("refuses ids that do not match the payloads one to one", () => {
    expect(() => perRunOptions(3, { ids: ["a", "b"] })).toThrow(/3 payload\(s\), 2 id\(s\)/);
    expect(() => perRunOptions(2, { ids: ["a", "a"] })).toThrow(/repeats the run id "a"/);
    expect(() => perRunOptions(2, { id: "x" })).toThrow(/pass `ids` with one id per payload/);
    expect(() => perRunOptions(1, { id: "x", ids: ["y"] })).toThrow(/either `id` or `ids`/);
    const refusal = (() => {
      try {
        perRunOptions(2, { ids: ["a"] });
        return null;
      } catch (err) {
        return err;
      }
    })();
    expect(refusal).toMatchObject({ code: "INVALID_IDS" });
  });
});
