import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { evictionPlan, pruneCache } from "./file-cache.js";

describe("evictionPlan", () => {
  const e = (path: string, size: number, usedMs: number) => ({ path, size, usedMs });

  it("removes least recently used copies until the cache fits", () => {
    const entries = [e("c", 30, 300), e("a", 30, 100), e("b", 30, 200), e("d", 30, 400)];
    expect(evictionPlan(entries, 60, 1000)).toEqual({ remove: ["a", "b"], bytesAfter: 60 });
    expect(evictionPlan(entries, 120, 1000)).toEqual({ remove: [], bytesAfter: 120 });
    expect(evictionPlan(entries, 0, 1000)).toEqual({ remove: ["a", "b", "c", "d"], bytesAfter: 0 });
  });

  it("never removes a copy used within the protection window, so the limit is soft", () => {
    const entries = [e("a", 30, 100), e("b", 30, 200), e("c", 30, 300)];
    // used after 150: b and c are protected, the cache stays over its limit
    expect(evictionPlan(entries, 30, 150)).toEqual({ remove: ["a"], bytesAfter: 60 });
    expect(evictionPlan(entries, 30, 50)).toEqual({ remove: [], bytesAfter: 90 });
  });
});

describe("pruneCache", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("removes the least recently used files of the folder and stale partial downloads", () => {
    dir = mkdtempSync(join(tmpdir(), "sluice-cache-"));
    const now = Date.parse("2026-01-01T12:00:00Z");
    const put = (rel: string, size: number, usedMs: number) => {
      const path = join(dir!, rel);
      mkdirSync(join(path, ".."), { recursive: true });
      writeFileSync(path, Buffer.alloc(size));
      utimesSync(path, new Date(usedMs), new Date(usedMs));
    };
    put("b/t/old.parquet", 100, now - 3_600_000);
    put("b/t/x=1/mid.parquet", 100, now - 1_800_000);
    put("b/t/new.parquet", 100, now - 1_000);
    put("b/t/dead.parquet.1.a.part", 50, now - 2 * 3_600_000);
    put("b/t/live.parquet.2.b.part", 50, now - 1_000);
    const out = pruneCache(dir, { maxBytes: 150, minAgeMs: 60_000, now });
    expect(out.removed.map((p) => p.slice(dir!.length + 1)).sort()).toEqual([
      "b/t/dead.parquet.1.a.part",
      "b/t/old.parquet",
      "b/t/x=1/mid.parquet",
    ]);
    expect(out.bytes).toBe(100);
    expect(readdirSync(join(dir, "b", "t")).sort()).toEqual(["live.parquet.2.b.part", "new.parquet", "x=1"]);
    // an empty or missing folder is an empty cache
    expect(pruneCache(join(dir, "none"), { maxBytes: 1, minAgeMs: 0, now })).toEqual({ removed: [], bytes: 0 });
  });
});
