/**
 * The write-ahead log grown before the first commits (`store/sqlite/wal-reserve.ts`), on real
 * SQLite files: the file reaches its checkpoint size, later commits write into it instead of
 * growing it, no data changes (the scratch table never exists for a reader or after a reopen),
 * and a database another connection is writing is left alone.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine, defineWorkflow, type Engine } from "../../src/index.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir } from "../helpers/tmp.js";
import { mountSmallDisk, unmountSmallDisk } from "../helpers/small-disk.js";

const dir = tempDir();
let n = 0;
const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

function store(path = join(dir, `wal${n++}.db`)): SqliteStore {
  const s = openSqliteStore({ path });
  open.push(s);
  return s;
}

const walSize = (s: SqliteStore) => statSync(`${s.db.name}-wal`, { throwIfNoEntry: false })?.size ?? 0;
/** What `wal_autocheckpoint` pages take as WAL frames. */
const target = (s: SqliteStore) =>
  (s.db.pragma("wal_autocheckpoint", { simple: true }) as number) *
  ((s.db.pragma("page_size", { simple: true }) as number) + 24);

const wf = defineWorkflow("wal-one", { handler: async (_p, ctx) => ctx.run("only", () => 1) });

describe("WAL reserve", () => {
  it("grows the log to its checkpoint size, and later commits write into it without growing it", async () => {
    const s = store();
    const before = walSize(s);
    expect(before).toBeLessThan(target(s) / 4);
    s.reserveLog();
    const reserved = walSize(s);
    expect(reserved).toBeGreaterThanOrEqual(target(s));
    const e = createEngine({ store: s, workflows: [wf], scheduler: false });
    await e.start();
    for (let i = 0; i < 20; i++) expect(await (await wf.start({ i })).result({ timeoutMs: 5000 })).toBe(1);
    await e.stop({ drainMs: 1000 });
    expect(walSize(s)).toBe(reserved);
    expect(await s.countRuns({ status: "succeeded" })).toBe(20);
  });

  it("changes no data: no scratch table for a reader or after a reopen, and runs read back", async () => {
    const path = join(dir, `wal${n++}.db`);
    const s = store(path);
    const e = createEngine({ store: s, workflows: [wf], scheduler: false });
    await e.start();
    await (await wf.start({ first: true })).result({ timeoutMs: 5000 });
    const tables = (db: Database.Database) =>
      (db.prepare("SELECT name FROM sqlite_master ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
    const schema = tables(s.db);
    s.reserveLog();
    expect(walSize(s)).toBeGreaterThanOrEqual(target(s));
    const reader = new Database(path, { readonly: true });
    try {
      expect(tables(reader)).toEqual(schema);
      expect(tables(reader)).not.toContain("sluice_wal_reserve");
    } finally {
      reader.close();
    }
    await e.stop({ drainMs: 1000 });
    await s.close();
    const again = store(path);
    expect(tables(again.db)).toEqual(schema);
    expect(await again.countRuns({ status: "succeeded" })).toBe(1);
  });

  it("leaves a database another connection is writing as it is", () => {
    const s = store();
    const other = new Database(s.db.name);
    open.push(other);
    other.pragma("busy_timeout = 0");
    s.db.pragma("busy_timeout = 0");
    other.exec("BEGIN IMMEDIATE");
    const before = walSize(s);
    const cache = s.db.pragma("cache_size", { simple: true });
    expect(() => s.reserveLog()).not.toThrow();
    expect(walSize(s)).toBe(before);
    other.exec("ROLLBACK");
    // Its page cache is as it was (the reserve sets a tiny one while it runs).
    expect(s.db.pragma("cache_size", { simple: true })).toBe(cache);
  });

  it("leaves the room of a small filesystem to the database", async (ctx) => {
    const mnt = mountSmallDisk("16m", () => ctx.skip(), "sluice-small-");
    try {
      const s = store(join(mnt, "small.db"));
      const before = walSize(s);
      s.reserveLog();
      expect(walSize(s)).toBe(before);
      await s.close();
    } finally {
      unmountSmallDisk(mnt);
    }
  });

  it("is called by an engine that runs a worker, not by one that only enqueues", async () => {
    const worker = createEngine({ database: join(dir, `wal${n++}.db`), workflows: [wf], scheduler: false });
    const producer = createEngine({ database: join(dir, `wal${n++}.db`), worker: false, scheduler: false });
    const engines: Engine[] = [worker, producer];
    try {
      for (const e of engines) await e.start();
      const size = (e: Engine) => walSize(e.store as SqliteStore);
      expect(size(worker)).toBeGreaterThanOrEqual(target(worker.store as SqliteStore));
      expect(size(producer)).toBeLessThan(target(producer.store as SqliteStore) / 4);
    } finally {
      for (const e of engines) await e.stop({ drainMs: 1000 });
    }
  });
});
