import { describe, expect, it } from "vitest";
import { isoMicros, pickSnapshot, timestampMicros, visibleAt, filesAt } from "./visibility.js";
import type { LakeDataFile, LakeDeleteFile, LakeSnapshot } from "./types.js";

const snap = (id: number, time: string): LakeSnapshot => {
  const micros = timestampMicros(time);
  return {
    snapshotId: id,
    time: isoMicros(micros),
    micros,
    schemaVersion: 0,
    nextCatalogId: 0,
    nextFileId: 0,
    changes: null,
    author: null,
    commitMessage: null,
  };
};

describe("snapshot visibility", () => {
  it("includes begin, excludes end", () => {
    expect(visibleAt({ beginSnapshot: 2, endSnapshot: 5 }, 1)).toBe(false);
    expect(visibleAt({ beginSnapshot: 2, endSnapshot: 5 }, 2)).toBe(true);
    expect(visibleAt({ beginSnapshot: 2, endSnapshot: 5 }, 4)).toBe(true);
    expect(visibleAt({ beginSnapshot: 2, endSnapshot: 5 }, 5)).toBe(false);
    expect(visibleAt({ beginSnapshot: 2, endSnapshot: null }, 99)).toBe(true);
  });

  it("parses catalog timestamps to microseconds in every stored form", () => {
    expect(isoMicros(timestampMicros("2026-12-01 04:47:03.5+00"))).toBe("2026-12-01T04:47:03.500000Z");
    expect(isoMicros(timestampMicros("2026-12-01T06:47:03.123456+02:00"))).toBe("2026-12-01T04:47:03.123456Z");
    expect(timestampMicros(new Date("2026-01-01T00:00:00.001Z"))).toBe(timestampMicros("2026-01-01 00:00:00.001+00"));
  });

  it("picks by version, by time (last at or before) and latest", () => {
    const all = [
      snap(0, "2026-01-01 00:00:00+00"),
      snap(1, "2026-01-02 00:00:00+00"),
      snap(2, "2026-01-03 00:00:00+00"),
    ];
    expect(pickSnapshot(all, { kind: "latest" }).snapshotId).toBe(2);
    expect(pickSnapshot(all, { kind: "version", snapshotId: 1 }).snapshotId).toBe(1);
    expect(pickSnapshot(all, { kind: "timestamp", at: "2026-01-02T12:00:00Z" }).snapshotId).toBe(1);
    expect(() => pickSnapshot(all, { kind: "version", snapshotId: 7 })).toThrow(/no snapshot with version 7/);
    expect(() => pickSnapshot(all, { kind: "timestamp", at: "2025-12-31T00:00:00Z" })).toThrow(/at or before/);
  });

  it("pairs each visible data file with its delete file at that snapshot", () => {
    const file = (id: number, begin: number, end: number | null) =>
      ({ dataFileId: id, beginSnapshot: begin, endSnapshot: end, fileOrder: null }) as unknown as LakeDataFile;
    const del = (id: number, data: number, begin: number, end: number | null) =>
      ({ deleteFileId: id, dataFileId: data, beginSnapshot: begin, endSnapshot: end }) as unknown as LakeDeleteFile;
    const data = [file(0, 1, null), file(1, 1, 3), file(2, 3, null)];
    const deletes = [del(5, 0, 2, 4), del(6, 0, 4, null)];
    expect(filesAt(data, deletes, 1).map((f) => [f.data.dataFileId, f.delete?.deleteFileId])).toEqual([
      [0, undefined],
      [1, undefined],
    ]);
    expect(filesAt(data, deletes, 3).map((f) => [f.data.dataFileId, f.delete?.deleteFileId])).toEqual([
      [0, 5],
      [2, undefined],
    ]);
    expect(filesAt(data, deletes, 4).map((f) => [f.data.dataFileId, f.delete?.deleteFileId])).toEqual([
      [0, 6],
      [2, undefined],
    ]);
  });
});
