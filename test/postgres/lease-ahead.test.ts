/**
 * Leases written while the database server's clock was ahead, on real Postgres. The server's clock
 * (`now_ms()`) decides there and cannot be moved here, so the test writes the lease as such a clock
 * would have (its end an hour out, its length as claimed), then reclaims (`Store.reclaimExpired`,
 * which first applies `store/clock-reanchor.ts` `leaseAheadAction`: note a lease found ahead, end it
 * when still noted a lease length later; a renewal clears the note).
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openPostgresStore } from "../../src/store/postgres/store.js";
import type { EnqueueRequest, Lease } from "../../src/store/types.js";
import { sql, testDatabase } from "../helpers/postgres.js";
import { delay } from "../helpers/tmp.js";

const HOUR = 3_600_000;
const url = await testDatabase("leaseahead");
const store = openPostgresStore(url, { pollMs: 200 });
await store.ready();
afterAll(() => store.close());

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

async function claim(id: string, leaseMs: number): Promise<Lease> {
  const r = req(id);
  await store.commit([{ verb: "enqueue", request: r }]);
  const [c] = await store.claim({ workerId: "w", limit: 1, leaseMs, workflows: [r.workflow] });
  expect(c?.run.id).toBe(id);
  return { runId: id, token: c!.token };
}

/** The lease as a server clock an hour ahead would have written it. */
const writeAhead = (id: string) =>
  sql(url, "UPDATE runs SET lease_expires_at = lease_expires_at + $1 WHERE id = $2", [HOUR, id]);
const leaseOf = async (id: string) => (await store.getRun(id))!.leaseExpiresAt!;
const noticedOf = async (id: string) =>
  (await sql<{ n: string | null }>(url, "SELECT lease_noticed_at AS n FROM runs WHERE id = $1", [id]))[0]!.n;

describe("a lease written while the database's clock was an hour ahead (Postgres)", () => {
  it("is noted by a reclaim, and ended and reclaimed when still noted a lease length later", async () => {
    await claim("dead", 1_000);
    await writeAhead("dead");
    const ahead = await leaseOf("dead");
    expect(await store.reclaimExpired(10, () => 0)).toEqual([]);
    expect(await noticedOf("dead")).not.toBeNull();
    expect(await leaseOf("dead")).toBe(ahead);
    await delay(1_100);
    expect(await store.reclaimExpired(10, () => 0)).toEqual(["dead"]);
    expect((await store.getRun("dead"))!).toMatchObject({ status: "pending", attempt: 2 });
  });

  it("stays with its live worker: each renewal clears the note, and the lease is never ended", async () => {
    const lease = await claim("live", 1_000);
    await writeAhead("live");
    for (let i = 0; i < 2; i++) {
      expect(await store.reclaimExpired(10, () => 0)).toEqual([]);
      expect(await noticedOf("live")).not.toBeNull();
      // A renewal on the clock still ahead: the store's renewal, then its end moved as that clock's would be.
      const [beat] = await store.commit([{ verb: "heartbeat", leases: [lease], leaseMs: 1_000 }]);
      expect(beat).toEqual({ ok: true, lost: [] });
      expect(await noticedOf("live")).toBeNull();
      await writeAhead("live");
      await delay(1_100);
    }
    expect(await store.reclaimExpired(10, () => 0)).toEqual([]);
    expect((await store.getRun("live"))!).toMatchObject({ status: "running", attempt: 1 });
    // Out of the way of the next tests' reclaims (its note would come of age during them).
    await sql(url, "UPDATE runs SET status = 'succeeded', lease_expires_at = NULL WHERE id = 'live'");
  });

  it("does not wait for nor overwrite a renewal in flight (the row it holds is skipped)", async () => {
    await claim("racing", 30_000);
    await writeAhead("racing");
    const u = new URL(url);
    const schema = u.searchParams.get("schema") ?? "sluice";
    for (const p of ["schema", "pool", "audit_claims"]) u.searchParams.delete(p);
    const other = new pg.Client({ connectionString: u.toString(), options: `-c search_path=${schema}` });
    await other.connect();
    let renewed: number;
    try {
      await other.query("BEGIN");
      // A renewal on a clock still ahead, not yet committed.
      const r = await other.query<{ at: string }>(
        "UPDATE runs SET lease_expires_at = now_ms() + $1 + 30000, lease_ms = 30000, lease_noticed_at = NULL WHERE id = 'racing' RETURNING lease_expires_at AS at",
        [2 * HOUR],
      );
      renewed = Number(r.rows[0]!.at);
      const reclaimed = await Promise.race([store.reclaimExpired(10, () => 0), delay(5_000).then(() => "waited")]);
      expect(reclaimed).toEqual([]);
      await other.query("COMMIT");
    } finally {
      await other.end();
    }
    expect(await leaseOf("racing")).toBe(renewed);
    expect(await noticedOf("racing")).toBeNull();
    // Once the renewal committed, the next reclaim notes it.
    expect(await store.reclaimExpired(10, () => 0)).toEqual([]);
    expect(await noticedOf("racing")).not.toBeNull();
    expect(await leaseOf("racing")).toBe(renewed);
  });

  it("leaves a long lease and rows leased before the length was recorded", async () => {
    await claim("long", 2 * HOUR);
    const long = await leaseOf("long");
    await claim("old-row", 30_000);
    await writeAhead("old-row");
    await sql(url, "UPDATE runs SET lease_ms = NULL WHERE id = 'old-row'");
    const old = await leaseOf("old-row");
    expect(await store.reclaimExpired(10, () => 0)).toEqual([]);
    expect(await leaseOf("long")).toBe(long);
    expect(await leaseOf("old-row")).toBe(old);
  });

  it("records the lease's length on a claim, a renewal and a run created leased", async () => {
    const lengthOf = async (id: string) =>
      Number((await sql<{ ms: string }>(url, "SELECT lease_ms AS ms FROM runs WHERE id = $1", [id]))[0]!.ms);
    const lease = await claim("lengths", 30_000);
    expect(await lengthOf("lengths")).toBe(30_000);
    await store.commit([{ verb: "heartbeat", leases: [lease], leaseMs: 12_000 }]);
    expect(await lengthOf("lengths")).toBe(12_000);
    const [r] = await store.commit([
      { verb: "enqueue", request: { ...req("created-leased"), claimFor: { workerId: "w", leaseMs: 7_000 } } },
    ]);
    expect(r!.ok && r!.enqueued?.claimed?.token).toBe(1);
    expect(await lengthOf("created-leased")).toBe(7_000);
  });
});
