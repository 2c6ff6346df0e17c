/**
 * `recordMaterialized` writes a slice's log entry and its current record together, on a real
 * SQLite store: both are there after a write, and when the store refuses the current record
 * neither is (before, the log entry was left without the record it is the latest of, so a later
 * rollback's timeline and the partition grid disagreed).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  MATERIALIZED_PREFIX,
  recordMaterialized,
  sliceEvents,
} from "../../src/pipeline/runtime/materialized-record.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";

const URI = "ducklake://main/ev";
let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sluice-materialized-record-"));
  store = openSqliteStore({ path: join(dir, "sluice.db") });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * `store`, except that the database refuses every write of a current slice record (its value
 * becomes null, which the `meta` table does not take): a fault injected between the log entry's
 * put and the record's, as a crash there would be; nothing else of the store is replaced.
 */
function refusingCurrentRecords(real: Store): Store {
  const refuse = (key: string, value: string) =>
    key.startsWith(MATERIALIZED_PREFIX) ? (null as unknown as string) : value;
  return new Proxy(real, {
    get(target, name, receiver) {
      if (name === "kvPut") return (key: string, value: string) => target.kvPut(key, refuse(key, value));
      if (name === "kvPutAll")
        return (entries: Array<{ key: string; value: string }>) =>
          target.kvPutAll(entries.map((e) => ({ key: e.key, value: refuse(e.key, e.value) })));
      const v = Reflect.get(target, name, receiver) as unknown;
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

describe("recordMaterialized", () => {
  it("writes the log entry and the current record of a slice together", async () => {
    await recordMaterialized(store, { asset: URI, rows: 3, snapshot_id: 4, partition: "d1" }, "r1", "f/p/ev.sql", 9);
    const current = await store.kvList(`${MATERIALIZED_PREFIX}${URI} `);
    expect(current.map((r) => [r.key, JSON.parse(r.value).run])).toEqual([[`${MATERIALIZED_PREFIX}${URI} d1`, "r1"]]);
    expect((await sliceEvents(store, URI)).map((e) => e.kind === "write" && e.record)).toEqual([current[0]!.value]);
  });

  it("leaves neither when the store refuses the current record", async () => {
    const failing = refusingCurrentRecords(store);
    await expect(
      recordMaterialized(failing, { asset: URI, rows: 3, snapshot_id: 4, partition: "d1" }, "r1", "f/p/ev.sql", 9),
    ).rejects.toThrow();
    expect(await store.kvList(`${MATERIALIZED_PREFIX}${URI} `)).toEqual([]);
    expect(await sliceEvents(store, URI)).toEqual([]);
  });
});
