/**
 * Clock skew between two workers on one SQLite file, where each process's wall clock decides its
 * leases: a `sluice worker` whose clock (the test-only clock of `clock-preload.ts`) runs 1 h ahead
 * claims a long run, so its lease ends an hour late on the real clock. A worker on the right clock
 * notes such a lease when it looks for expired leases, and ends it when it is still noted a lease
 * length later (`store/clock-reanchor.ts` `leaseAheadAction`, from the `lease_ms` every claim and
 * renewal records; a renewal clears the note):
 *
 * - the fast worker is SIGKILLed: the other reclaims the run within about one lease length, not
 *   after the hour;
 * - the fast worker stays alive: its renewals (every third of its lease) clear each note, and it
 *   keeps its run, whose step body runs once.
 */
import { existsSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { eventually } from "../helpers/tmp.js";
import { delay } from "../helpers/tmp.js";
import { CLOCK_PRELOAD, HOUR, query, testClock } from "./clock-preload.js";
import { type ChaosProject, chaosProject, record, stopAll } from "./harness.js";

/** A one-step workflow whose step body writes its ledger line, then runs while the hold file exists (at most 60 s). */
const HOLD = `
import { appendFileSync, existsSync } from "node:fs";
import { defineWorkflow } from "sluice";
export default defineWorkflow<{ hold: string }>("hold", {
  retries: 5,
  handler: async (p, ctx) =>
    ctx.run("body", async (step) => {
      appendFileSync(process.env.CHAOS_LEDGER!, step.runId + ":body\\n");
      const end = performance.now() + 60_000;
      while (existsSync(p.hold) && performance.now() < end) await new Promise((r) => setTimeout(r, 50));
      return "held";
    }),
});
`;

const LEASE = ["--lease", "2s"];
const LEASE_MS = 2_000;

interface LeaseRow {
  status: string;
  attempt: number;
  claims: number;
  leaseExpiresAt: number | null;
  leaseMs: number | null;
  noticedAt: number | null;
}

const rowOf = async (p: ChaosProject, id: string): Promise<LeaseRow | undefined> =>
  (
    await query<LeaseRow>(
      "sqlite",
      p.db,
      `SELECT status, attempt, claims, lease_expires_at AS leaseExpiresAt, lease_ms AS leaseMs, lease_noticed_at AS noticedAt FROM runs WHERE id = $1`,
      [id],
    )
  )[0];

/** A project, a hold file, and the run `id` enqueued (from this process, on the right clock). */
async function holdRun(id: string) {
  const p = await chaosProject("sqlite", { "clock.mjs": CLOCK_PRELOAD, "workflows/hold.ts": HOLD });
  const hold = join(p.root, "hold");
  writeFileSync(hold, "");
  const clock = testClock(p.root, HOUR);
  const fast = p.worker([...LEASE, "--concurrency", "2"], clock.env);
  await fast.waitFor(/ready/, 30_000);
  const { createEngine } = await import("../../src/engine/engine.js");
  const { defineWorkflow } = await import("../../src/sdk/workflow.js");
  const producer = createEngine({ store: p.store, worker: false, scheduler: false, captureConsole: false });
  await producer.enqueueRun(defineWorkflow("hold", { retries: 5, handler: async () => undefined }), { hold }, { id });
  // Claimed by the fast worker: its lease ends about an hour out on the real clock.
  await eventually(async () => (p.ledger().get(`${id}:body`) ?? 0) === 1, 20_000);
  await eventually(async () => ((await rowOf(p, id))?.leaseExpiresAt ?? 0) > Date.now() + HOUR - 60_000, 10_000);
  const right = p.worker([...LEASE, "--concurrency", "2"]);
  await right.waitFor(/ready/, 30_000);
  return { p, hold, fast, right };
}

it("a worker 1 h ahead claims a long run and is SIGKILLed: a worker on the right clock reclaims it within about a lease (SQLite)", async () => {
  const started = Date.now();
  const { p, hold, fast, right } = await holdRun("dead");
  fast.proc.kill("SIGKILL");
  await fast.exited;
  const killedAt = Date.now();
  // Without the rule the lease would hold for the hour; 20 s is ten lease lengths.
  await eventually(async () => (p.ledger().get("dead:body") ?? 0) === 2, 20_000);
  const reclaimedAfterMs = Date.now() - killedAt;
  unlinkSync(hold);
  await eventually(async () => (await p.store.getRun("dead"))?.status === "succeeded", 20_000);
  const alive = right.proc.exitCode === null && right.proc.signalCode === null;
  await stopAll([right]);
  const run = (await p.store.getRun("dead"))!;
  record({
    fault: "clock skew: a worker 1 h ahead dies holding a lease (SQLite)",
    store: "sqlite",
    injected: `worker +1 h claims a run (lease ${LEASE_MS / 1000} s, ending 1 h late), SIGKILL; the right-clock worker re-ran it ${reclaimedAfterMs} ms after the kill; attempt ${run.attempt}`,
    runs: 1,
    lost: 0,
    stuck: run.status === "succeeded" ? 0 : 1,
    failed: run.status === "failed" ? 1 : 0,
    wrong: run.result === JSON.stringify("held") ? 0 : 1,
    duplicateEffects: (p.ledger().get("dead:body") ?? 0) - 1,
    http5xx: 0,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    note: "the killed attempt's body ran again (at-least-once)",
  });
  expect(reclaimedAfterMs).toBeLessThan(10_000);
  expect(run).toMatchObject({ status: "succeeded", attempt: 2, result: JSON.stringify("held") });
  expect(alive).toBe(true);
});

it("a worker 1 h ahead that stays alive keeps its run while the right-clock worker looks at its lease (SQLite)", async () => {
  const started = Date.now();
  const { p, hold, fast, right } = await holdRun("live");
  // Both run for 6 s (3 lease lengths, a dozen of the other worker's reclaim passes).
  let noted = 0;
  let ahead = 0;
  const end = Date.now() + 6_000;
  while (Date.now() < end) {
    const row = await rowOf(p, "live");
    if (row?.status === "running" && row.leaseExpiresAt !== null) {
      if (row.leaseExpiresAt > Date.now() + HOUR - 60_000) ahead++;
      if (row.noticedAt !== null) noted++;
    }
    await delay(25);
  }
  unlinkSync(hold);
  await eventually(async () => (await p.store.getRun("live"))?.status === "succeeded", 20_000);
  const procs = [fast, right];
  const alive = procs.filter((w) => w.proc.exitCode === null && w.proc.signalCode === null).length;
  await stopAll(procs);
  const row = (await rowOf(p, "live"))!;
  const bodies = p.ledger().get("live:body") ?? 0;
  record({
    fault: "clock skew: a live worker 1 h ahead renews its lease (SQLite)",
    store: "sqlite",
    injected: `worker +1 h holds a run 6 s (lease ${LEASE_MS / 1000} s) beside a right-clock worker; lease seen noted by the right-clock worker ${noted} and ahead ${ahead} times; claims ${row.claims}; ${alive}/2 workers up after`,
    runs: 1,
    lost: 0,
    stuck: row.status === "succeeded" ? 0 : 1,
    failed: row.status === "failed" ? 1 : 0,
    wrong: 0,
    duplicateEffects: bodies - 1,
    http5xx: 0,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  });
  expect(existsSync(hold)).toBe(false);
  // The rule looked at the live lease (noted it), and the renewals won.
  expect(noted).toBeGreaterThan(0);
  expect(ahead).toBeGreaterThan(0);
  expect(row).toMatchObject({ status: "succeeded", attempt: 1, claims: 1, leaseMs: LEASE_MS });
  expect(bodies).toBe(1);
  expect(alive).toBe(2);
});
