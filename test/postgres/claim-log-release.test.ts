/**
 * The claim audit (`?audit_claims=true`, `claim_log`) on real Postgres says how each reclaimed
 * claim ended: `released` for a lease its worker released (its process exited, or it stopped after
 * its drain timeout), `expired` for one that ran out (`store/postgres/ops.ts` `reclaimExpired`).
 */
import { afterAll, describe, expect, it } from "vitest";
import { releaseLeaseMs } from "../../src/store/run-errors.js";
import { openPostgresStore } from "../../src/store/postgres/store.js";
import type { Lease } from "../../src/store/types.js";
import { sql, testDatabase } from "../helpers/postgres.js";
import { delay } from "../helpers/tmp.js";

const url = await testDatabase("claimlog");
const store = openPostgresStore(url, { pollMs: 200, auditClaims: true });
await store.ready();
afterAll(() => store.close());

async function claim(id: string, leaseMs: number): Promise<Lease> {
  await store.commit([
    {
      verb: "enqueue",
      request: {
        id,
        dedupe: false,
        workflow: `wf-${id}`,
        queue: "default",
        payload: "{}",
        maxAttempts: 3,
        backoff: { base: 1000, max: 3_600_000 },
      },
    },
  ]);
  const [c] = await store.claim({ workerId: "w", limit: 1, leaseMs, workflows: [`wf-${id}`] });
  expect(c?.run.id).toBe(id);
  return { runId: id, token: c!.token };
}

describe("claim_log on reclaim (Postgres)", () => {
  it("records a released claim as released and an expired one as expired", async () => {
    const released = await claim("released", 30_000);
    await claim("expired", 1);
    await store.commit([{ verb: "heartbeat", leases: [released], leaseMs: releaseLeaseMs("worker-exited") }]);
    await delay(15);
    expect((await store.reclaimExpired(10, () => 0)).sort()).toEqual(["expired", "released"]);
    const rows = await sql<{ run_id: string; released_by: string; released_at: string | null }>(
      url,
      "SELECT run_id, released_by, released_at FROM claim_log ORDER BY run_id",
    );
    expect(rows.map((r) => [r.run_id, r.released_by, r.released_at !== null])).toEqual([
      ["expired", "expired", true],
      ["released", "released", true],
    ]);
  });
});
