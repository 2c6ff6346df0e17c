import { describe, expect, it } from "vitest";
import { runTimeoutMs, taskCacheKey, taskRunFields } from "./task-options.js";

describe("task options", () => {
  it("the cache key depends on workflow, task and payload, and nothing else", () => {
    const k = taskCacheKey("f/etl", "extract", '{"n":1}');
    expect(k).toMatch(/^[0-9a-f]{64}$/);
    expect(taskCacheKey("f/etl", "extract", '{"n":1}')).toBe(k);
    expect(taskCacheKey("f/etl", "extract", '{"n":2}')).not.toBe(k);
    expect(taskCacheKey("f/etl", "load", '{"n":1}')).not.toBe(k);
    expect(taskCacheKey("f/other", "extract", '{"n":1}')).not.toBe(k);
    // No task (a workflow child) hashes as an empty task name, as the engine always has.
    expect(taskCacheKey("f/etl", null, null)).toBe(taskCacheKey("f/etl", "", null));
  });

  it("fields: options.timeoutMs, and a cache key with its TTL only when a TTL is set", () => {
    expect(taskRunFields("w", "t", "1", {})).toEqual({ options: null });
    expect(taskRunFields("w", "t", "1", { timeoutMs: 1500, cacheTtlMs: 0 })).toEqual({
      options: '{"timeoutMs":1500}',
    });
    expect(taskRunFields("w", "t", "1", { cacheTtlMs: 60_000 })).toEqual({
      options: null,
      cacheKey: taskCacheKey("w", "t", "1"),
      cacheTtlMs: 60_000,
    });
  });

  it("reads a run's timeout back from its options; anything else is no timeout", () => {
    expect(runTimeoutMs('{"timeoutMs":1500,"traceparent":"00-x"}')).toBe(1500);
    expect(runTimeoutMs(null)).toBeNull();
    expect(runTimeoutMs("not json")).toBeNull();
    expect(runTimeoutMs('{"timeoutMs":"1s"}')).toBeNull();
    expect(runTimeoutMs('{"timeoutMs":0}')).toBeNull();
    expect(runTimeoutMs('{"traceparent":"00-x"}')).toBeNull();
    expect(runTimeoutMs('{ "timeoutMs" : 20 }')).toBe(20);
  });
});
