/**
 * A clock that jumps on the machine running Sluice on SQLite. One file means one machine and one
 * clock, so every process jumps together: a `sluice server` and 2 workers (lease 1 s) whose clock
 * (the test-only clock of `clock-preload.ts`: the machine's clock cannot be changed here) jumps 1 h
 * forward and is set right again while runs execute and cron ticks fall due.
 *
 * Leases look expired after the jump forward (takeovers, fenced), and what was scheduled while the
 * clock was ahead (re-queued takeovers, retries, cron ticks' runs) is re-anchored by the scheduler
 * once the clock is set right (`store/clock-reanchor.ts`): it runs then, not an hour later. Must
 * hold: nothing left waiting for the clock, every cron tick once, one result per step, nothing
 * lost, failed or wrong, everything finished without the clock catching up, all processes up.
 * Ends with the invariant query.
 */
import { expect, it } from "vitest";
import { spawnSluice } from "../helpers/processes.js";
import { delay, eventually } from "../helpers/tmp.js";
import { CLOCK_FILES, doneSteps, HOUR, query, testClock } from "./clock-preload.js";
import {
  chaosProject,
  checkLedgerRuns,
  type StoreKind,
  enqueueLedgerRuns,
  record,
  rowOf,
  stopAll,
  untilFinished,
} from "./harness.js";

it("a clock that jumps 1 h forward and back on the machine running Sluice on SQLite (lease 1 s)", async () => {
  const started = Date.now();
  const kind: StoreKind = "sqlite";
  const p = await chaosProject(kind, CLOCK_FILES);
  const clock = testClock(p.root, 0);
  const jumping = { ...clock.env, CHAOS_LEDGER: p.ledgerFile };
  const procs = [
    spawnSluice(
      ["server", "--db", p.db, "--workers", "none", "--scheduler-tick", "100ms", "--port", "0"],
      p.root,
      jumping,
    ),
    p.worker(["--concurrency", "20"], jumping),
    p.worker(["--concurrency", "20"], jumping),
  ];
  await Promise.all(procs.map((w) => w.waitFor(/ready/, 30_000)));
  const ids = await enqueueLedgerRuns(p, "jump", 300, 3, 300);
  const end = Date.now() + 30_000;
  while (Date.now() < end && p.ledger().size === 0) await delay(100);

  // Cron ticks made due 1 s ahead (on the real clock, which the processes share before and after).
  const ticks: number[] = [];
  const tickOnce = async () => {
    const at = Date.now() + 1_000;
    ticks.push(at);
    await query(kind, p.db, "UPDATE schedules SET next_at = $1 WHERE workflow = 'tick'", [at]);
    await eventually(async () => (await p.store.getRun(`cron:tick:${new Date(at).toISOString()}`)) !== null, 20_000);
    await delay(300);
  };
  await tickOnce();
  clock.set(HOUR); // the machine's clock jumps 1 h forward
  await delay(1_500);
  await tickOnce();
  clock.set(0); // and is set right again
  await delay(1_500);
  await tickOnce();
  // What was scheduled while the clock was ahead is due now, not when the clock gets there again.
  await delay(1_000);
  const [pendingLater] = await query<{ n: number }>(
    kind,
    p.db,
    "SELECT count(*) AS n FROM runs WHERE status = 'pending' AND ready_at > $1",
    [Date.now() + 10 * 60_000],
  );
  const delayed = pendingLater!.n;
  // No time passes on the clock: everything finishes all the same.
  await untilFinished(p.store, ids, 90_000);
  const alive = procs.filter((w) => w.proc.exitCode === null && w.proc.signalCode === null).length;
  await stopAll(procs);
  for (const w of procs)
    if (w.proc.exitCode !== null) console.log(`process exited ${w.proc.exitCode}: ${w.output().slice(-2000)}`);
  const runs = await p.store.getRuns(ids);
  const maxAttempt = Math.max(...runs.map((r) => r.attempt));
  const tickRuns = (await p.store.listRuns({ workflow: "tick", limit: 1_000 })).map((r) => r.id);
  const firedOnce = ticks.filter(
    (at) => tickRuns.filter((id) => id === `cron:tick:${new Date(at).toISOString()}`).length === 1,
  ).length;
  const inv = await checkLedgerRuns(p, ids, 3);
  record(
    rowOf(
      "clock jumps 1 h forward and back (the SQLite machine)",
      kind,
      `every process +1 h, then set right; ${delayed} runs left waiting for the clock 1 s after (re-anchored); ${ticks.length} cron ticks (${firedOnce} fired once, ${tickRuns.length} tick runs); highest attempt ${maxAttempt}; ${alive}/3 processes up after`,
      inv,
      started,
    ),
  );
  expect(delayed).toBe(0);
  expect(alive).toBe(3);
  expect(firedOnce).toBe(ticks.length);
  expect(tickRuns.length).toBeLessThanOrEqual(ticks.length + 1);
  expect(new Set(tickRuns).size).toBe(tickRuns.length);
  expect(await doneSteps(kind, p.db)).toBe(ids.length * 3);
  expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0 });
  expect(inv.succeeded).toBe(ids.length);
});
