/**
 * A SQLite writer waiting for another process's write lock waits on the event loop (issue 15):
 * while a second process holds the lock, this process's timers keep firing, its writes wait in
 * the order they were made and commit once the lock is released, and a write still waiting after
 * the busy timeout fails with SQLITE_BUSY as before. (Before, SQLite's busy handler slept the
 * thread for the whole wait: the interval below did not fire once while the lock was held.)
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/store.js";
import { holdWriteLock, type LockHolder, writeLockHeld } from "../helpers/sqlite-lock.js";
import { delay, tempDir } from "../helpers/tmp.js";

const dir = tempDir();
let n = 0;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Another process holding the write lock of `file` until {@link LockHolder.release}. */
async function holdLock(file: string): Promise<LockHolder> {
  const holder = await holdWriteLock(file, "INSERT INTO meta (key, value) VALUES ('kv:holder', 'held')");
  cleanups.push(holder.kill);
  return holder;
}

function store(busyTimeout = "10s"): { s: SqliteStore; path: string } {
  const path = join(dir, `lock-${n++}.db`);
  const s = openSqliteStore({ path, busyTimeout });
  cleanups.push(() => s.close());
  return { s, path };
}

/** Counts the ticks of a 5 ms interval. */
function ticker(): { ticks: () => number; stop: () => void } {
  let ticks = 0;
  const t = setInterval(() => ticks++, 5);
  return { ticks: () => ticks, stop: () => clearInterval(t) };
}

describe("SQLite write lock held by another process", () => {
  it("keeps this process's event loop running while its writes wait, and commits them in order after the release", async () => {
    const { s, path } = store();
    await s.kvPut("before", "1");
    const holder = await holdLock(path);
    expect(writeLockHeld(path)).toBe(true);

    const clock = ticker();
    cleanups.push(clock.stop);
    const done: string[] = [];
    const first = s.kvPut("a", "1").then(() => done.push("a"));
    const second = s.kvSwap("a", "1", "2").then((ok) => done.push(`swap:${ok}`));
    const third = s.lead("scheduler", "me", 10_000).then((ok) => done.push(`lead:${ok}`));
    const ticksAtStart = clock.ticks();
    await delay(300);
    // The writes wait, and the interval kept firing meanwhile (it cannot while a thread sleeps).
    expect(done).toEqual([]);
    expect(clock.ticks() - ticksAtStart).toBeGreaterThanOrEqual(5);
    // Reads do not wait for the writer's lock (WAL).
    expect(await s.kvGet("before")).toBe("1");

    await holder.release();
    await Promise.all([first, second, third]);
    expect(done).toEqual(["a", "swap:true", "lead:true"]);
    expect(await s.kvGet("a")).toBe("2");
    expect(await s.kvGet("holder")).toBe("held");
  });

  it("stamps a write that waited with the time it got the lock (a claim's lease runs from then)", async () => {
    const { s, path } = store();
    await s.commit([
      {
        verb: "enqueue",
        request: {
          id: "r1",
          dedupe: false,
          workflow: "wf",
          queue: "default",
          payload: "{}",
          maxAttempts: 3,
          backoff: { base: 1000, max: 60_000 },
        },
      },
    ]);
    const holder = await holdLock(path);
    const claiming = s.claim({ workerId: "w", limit: 1, leaseMs: 1_000, workflows: ["wf"] });
    await delay(300);
    const released = Date.now();
    await holder.release();
    const [claimed] = await claiming;
    expect(claimed!.run.id).toBe("r1");
    expect(claimed!.claimedAt).toBeGreaterThanOrEqual(released);
    expect(claimed!.run.leaseExpiresAt).toBeGreaterThanOrEqual(released + 1_000);
  });

  it("fails a write still waiting after the busy timeout with SQLITE_BUSY, without stopping the event loop", async () => {
    const { s, path } = store("300ms");
    await s.kvPut("before", "1");
    const holder = await holdLock(path);
    const clock = ticker();
    cleanups.push(clock.stop);
    const started = performance.now();
    const err = await s.kvPut("late", "1").then(
      () => null,
      (e: unknown) => e,
    );
    const waited = performance.now() - started;
    expect((err as { code?: string } | null)?.code).toBe("SQLITE_BUSY");
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(clock.ticks()).toBeGreaterThanOrEqual(5);
    await holder.release();
    // Once the lock is free again, writes go through at once.
    await s.kvPut("after", "1");
    expect(await s.kvGet("late")).toBeNull();
    expect(await s.kvGet("after")).toBe("1");
  });
});
