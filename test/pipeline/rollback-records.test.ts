/**
 * `followRollback` on a real store: which records of a rolled-back table it removes (writes
 * between the snapshot rolled back to and the rollback's own), which it keeps (older writes,
 * writes after the rollback, other tables), and the done marks of the undone runs' steps.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { markDone, readDone } from "../../src/pipeline/runtime/done-marks.js";
import { recordMaterialized } from "../../src/pipeline/runtime/materialized-record.js";
import { followRollback } from "../../src/pipeline/runtime/rollback-records.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";

const URI = "ducklake://main/ev";
let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sluice-rollback-records-"));
  store = openSqliteStore({ path: join(dir, "sluice.db") });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A managed write of `partition` at `snapshot` by run `run` of step f/part/ev.sql, with its index entry and done mark. */
async function write(uri: string, partition: string, snapshot: number, run: string): Promise<void> {
  await recordMaterialized(store, { asset: uri, rows: 3, snapshot_id: snapshot, partition }, run);
  await store.kvPut(`pipeline:written:${uri} ${partition}`, JSON.stringify({ run, script: "f/part/ev.sql", at: 1 }));
  await markDone(store, "f/part/ev.sql", partition, { version: "v", run: `plan-${run}`, at: 1 });
}

describe("followRollback", () => {
  it("removes the records, index entries and done marks of the writes the rollback undid, and only those", async () => {
    await write(URI, "d1", 1, "r1");
    await write(URI, "d2", 2, "r2");
    await write(URI, "d3", 3, "r3");
    await write(URI, "d4", 7, "r4"); // committed after the rollback (snapshot 6): kept
    await write("ducklake://main/other", "d9", 3, "r5"); // another table: kept

    const out = await followRollback(store, { uri: URI, to: 1, snapshot: 6 });
    expect(out).toEqual({ partitions: ["d2", "d3"], restored: [], schemaRestored: null, lineageRestored: null });
    const slices = (await store.kvList(`pipeline:materialized:${URI} `)).map((r) => JSON.parse(r.value).partition);
    expect(slices.sort()).toEqual(["d1", "d4"]);
    const written = (await store.kvList(`pipeline:written:${URI} `)).map((r) => r.key.split(" ")[1]);
    expect(written.sort()).toEqual(["d1", "d4"]);
    expect(await readDone(store, "f/part/ev.sql", "d1")).not.toBeNull();
    expect(await readDone(store, "f/part/ev.sql", "d2")).toBeNull();
    expect(await readDone(store, "f/part/ev.sql", "d3")).toBeNull();
    expect(await readDone(store, "f/part/ev.sql", "d4")).not.toBeNull();
    expect(await readDone(store, "f/part/ev.sql", "d9")).not.toBeNull();
    expect(await store.kvList("pipeline:materialized:ducklake://main/other ")).toHaveLength(1);
    expect(await store.kvList("pipeline:written:ducklake://main/other ")).toHaveLength(1);
  });

  it("keeps an index entry (and its step's done mark) that another run replaced meanwhile", async () => {
    await write(URI, "d2", 2, "r2");
    await store.kvPut(`pipeline:written:${URI} d2`, JSON.stringify({ run: "r9", script: "f/part/ev.sql", at: 2 }));
    await followRollback(store, { uri: URI, to: 1, snapshot: 6 });
    expect(await store.kvList(`pipeline:materialized:${URI} `)).toEqual([]);
    expect(await store.kvList(`pipeline:written:${URI} `)).toHaveLength(1);
    expect(await readDone(store, "f/part/ev.sql", "d2")).not.toBeNull();
  });

  it("undoes a whole-table write of a run a partitioned chain started: its one entry, and its done mark under the run's partition", async () => {
    // an unpartitioned step run for d1, then for d2: one whole-table slice record and index entry, the latest
    const whole = async (snapshot: number, run: string, day: string) => {
      await recordMaterialized(store, { asset: URI, rows: 1, snapshot_id: snapshot }, run, "f/w/total.sql", snapshot);
      const entry = { run, script: "f/w/total.sql", at: snapshot, runPartition: day };
      await store.kvPut(`pipeline:written:${URI} `, JSON.stringify(entry));
      await markDone(store, "f/w/total.sql", day, { version: "v", run: `plan-${run}`, at: 1 });
    };
    await whole(1, "r1", "d1");
    await whole(2, "r2", "d2");
    const out = await followRollback(store, { uri: URI, to: 1, snapshot: 6 });
    expect(out).toMatchObject({ partitions: [], restored: [""] });
    const written = (await store.kvList(`pipeline:written:${URI} `)).map((r) => [r.key, JSON.parse(r.value).run]);
    expect(written).toEqual([[`pipeline:written:${URI} `, "r1"]]);
    expect(await readDone(store, "f/w/total.sql", "d2")).toBeNull();
    expect(await readDone(store, "f/w/total.sql", "d1")).not.toBeNull();
  });
});
