/**
 * Leases written by a clock ahead, on a real SQLite file shared by two stores: one whose clock (the
 * store's injected clock, as a process's wall clock) runs an hour ahead claims and renews, the other
 * on the right clock reclaims (`Store.reclaimExpired`, which first applies
 * `store/clock-reanchor.ts` `leaseAheadAction`: note a lease found ahead, end it when still noted
 * a lease length later; a renewal clears the note).
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { EnqueueRequest, Lease, Store } from "../../src/store/types.js";
import { tempDir } from "../helpers/tmp.js";

const HOUR = 3_600_000;
const LEASE = 30_000;
const path = join(tempDir("sluice-lease-ahead-"), "sluice.db");
const fast = openSqliteStore({ path, clock: { now: () => Date.now() + HOUR } });
let later = 0;
/** The right clock; `later` moves it forward to see a lease run out without waiting. */
const right = openSqliteStore({ path, clock: { now: () => Date.now() + later } });
afterAll(async () => {
  await fast.close();
  await right.close();
});

let n = 0;
function req(id: string): EnqueueRequest {
  return {
    id,
    dedupe: false,
    workflow: `wf${++n}`,
    queue: "default",
    payload: "{}",
    maxAttempts: 3,
    backoff: { base: 1000, max: 3_600_000 },
  };
}

/** Enqueues `id` (on the right clock) and claims it on `store`'s clock with a 30 s lease. */
async function claimOn(store: Store, id: string): Promise<Lease> {
  const r = req(id);
  await right.commit([{ verb: "enqueue", request: r }]);
  const [c] = await store.claim({ workerId: "w", limit: 1, leaseMs: LEASE, workflows: [r.workflow] });
  expect(c?.run.id).toBe(id);
  return { runId: id, token: c!.token };
}

const leaseOf = async (id: string) => (await right.getRun(id))!.leaseExpiresAt!;
function column(id: string, name: "lease_ms" | "lease_noticed_at"): number | null {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare(`SELECT ${name} AS v FROM runs WHERE id = ?`).get(id) as { v: number | null }).v;
  } finally {
    db.close();
  }
}
/** Reclaims on the right clock `ms` later. */
async function reclaimLater(ms: number): Promise<string[]> {
  later = ms;
  try {
    return await right.reclaimExpired(10, () => 0);
  } finally {
    later = 0;
  }
}

describe("a lease written by a clock an hour ahead (SQLite)", () => {
  it("is noted by a reclaim on the right clock, and ended and reclaimed when still noted a lease length later", async () => {
    await claimOn(fast, "dead");
    const ahead = await leaseOf("dead");
    expect(ahead).toBeGreaterThan(Date.now() + HOUR);
    const before = Date.now();
    expect(await right.reclaimExpired(10, () => 0)).toEqual([]);
    expect(column("dead", "lease_noticed_at")).toBeGreaterThanOrEqual(before);
    expect(await leaseOf("dead")).toBe(ahead);
    expect(await reclaimLater(LEASE / 2)).toEqual([]);
    // One lease length on the right clock, not an hour.
    expect(await reclaimLater(LEASE + 1_000)).toEqual(["dead"]);
    expect((await right.getRun("dead"))!).toMatchObject({ status: "pending", attempt: 2 });
  });

  it("stays with its live worker: each renewal on the fast clock clears the note, and the lease is never ended", async () => {
    const lease = await claimOn(fast, "live");
    for (let i = 0; i < 3; i++) {
      expect(await right.reclaimExpired(10, () => 0)).toEqual([]);
      expect(column("live", "lease_noticed_at")).not.toBeNull();
      const [beat] = await fast.commit([{ verb: "heartbeat", leases: [lease], leaseMs: LEASE }]);
      expect(beat).toEqual({ ok: true, lost: [] });
      expect(column("live", "lease_noticed_at")).toBeNull();
      // A lease length later: noted again, not ended.
      expect(await reclaimLater(LEASE + 1_000)).toEqual([]);
      expect(await leaseOf("live")).toBeGreaterThan(Date.now() + HOUR);
      await fast.commit([{ verb: "heartbeat", leases: [lease], leaseMs: LEASE }]);
    }
    expect((await right.getRun("live"))!).toMatchObject({ status: "running", attempt: 1 });
  });

  it("is told from one renewed on the right clock after a claim on the fast one (left as it is)", async () => {
    const lease = await claimOn(fast, "renewed-right");
    await right.commit([{ verb: "heartbeat", leases: [lease], leaseMs: LEASE }]);
    const renewed = await leaseOf("renewed-right");
    expect(renewed).toBeLessThanOrEqual(Date.now() + LEASE);
    expect(await right.reclaimExpired(10, () => 0)).toEqual([]);
    expect(await leaseOf("renewed-right")).toBe(renewed);
    expect(column("renewed-right", "lease_noticed_at")).toBeNull();
  });

  it("leaves a long lease renewed on the right clock, and rows leased before the length was recorded", async () => {
    const r = req("long");
    await right.commit([{ verb: "enqueue", request: r }]);
    await right.claim({ workerId: "w", limit: 1, leaseMs: 2 * HOUR, workflows: [r.workflow] });
    const long = await leaseOf("long");
    await claimOn(fast, "old-row");
    const db = new Database(path);
    try {
      db.prepare("UPDATE runs SET lease_ms = NULL WHERE id = 'old-row'").run();
    } finally {
      db.close();
    }
    const old = await leaseOf("old-row");
    expect(await right.reclaimExpired(10, () => 0)).toEqual([]);
    expect(await leaseOf("long")).toBe(long);
    expect(await leaseOf("old-row")).toBe(old);
    expect(column("old-row", "lease_noticed_at")).toBeNull();
  });

  it("records the lease's length on a claim, a renewal and a run created leased", async () => {
    const db = new Database(path, { readonly: true });
    const lengthOf = (id: string) =>
      (db.prepare("SELECT lease_ms AS ms FROM runs WHERE id = ?").get(id) as { ms: number | null }).ms;
    try {
      const lease = await claimOn(right, "lengths");
      expect(lengthOf("lengths")).toBe(LEASE);
      await right.commit([{ verb: "heartbeat", leases: [lease], leaseMs: 12_000 }]);
      expect(lengthOf("lengths")).toBe(12_000);
      const created = req("created-leased");
      const [r] = await right.commit([
        { verb: "enqueue", request: { ...created, claimFor: { workerId: "w", leaseMs: 7_000 } } },
      ]);
      expect(r!.ok && r!.enqueued?.claimed?.token).toBe(1);
      expect(lengthOf("created-leased")).toBe(7_000);
    } finally {
      db.close();
    }
  });
});
