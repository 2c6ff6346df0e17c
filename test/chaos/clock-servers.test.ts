/**
 * Clock skew and clock jumps between two `sluice server` processes on one Postgres database.
 *
 * Server A and its worker keep the machine's clock. Server B and its worker run with a clock that
 * is first 5 s ahead, then jumps 1 h forward, then 2 h back (1 h behind): the test-only clock of
 * `clock-preload.ts` (the machine's clock cannot be changed here).
 *
 * Must hold: every cron tick fired exactly once, one result per step, nothing lost, stuck, failed or
 * wrong, all four processes up; and since the database's clock decides due times, lease expiry
 * and cron ticks, with a lease of 1 s the skew must not show at all: no lease taken over (every run
 * on attempt 1, no step body repeated), no timer started before its due time, no tick fired early.
 * Ends with the invariant query.
 */
import { execFileSync } from "node:child_process";
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

const SKEW_MS = 5_000;

it("clock skew and jumps between 2 servers on one Postgres database (lease 1 s)", async () => {
  const kind: StoreKind = "postgres";
  const started = Date.now();
  const p = await chaosProject(kind, CLOCK_FILES);
  const clock = testClock(p.root, SKEW_MS);
  const skewed = clock.env;
  // The skew is in effect in a process started with this environment (Date.now and new Date()).
  const probe = execFileSync(process.execPath, ["-e", "console.log(Date.now() + ' ' + new Date().getTime())"], {
    env: { ...process.env, ...skewed },
    encoding: "utf8",
  });
  for (const t of probe.trim().split(" ")) expect(Number(t) - Date.now()).toBeGreaterThan(SKEW_MS - 1_000);
  const env = { SLUICE_DATABASE_URL: p.db, CHAOS_LEDGER: p.ledgerFile };
  const server = (extra: Record<string, string>) =>
    spawnSluice(["server", "--workers", "none", "--scheduler-tick", "100ms", "--port", "0"], p.root, {
      ...env,
      ...extra,
    });
  const procs = [
    server({}),
    server(skewed),
    p.worker(["--concurrency", "20"]),
    p.worker(["--concurrency", "20"], skewed),
  ];
  await Promise.all(procs.map((w) => w.waitFor(/ready/, 30_000)));

  // Timers: runs due 2–10 s from now on the database's clock, across the jumps.
  const { createEngine } = await import("../../src/engine/engine.js");
  const { defineWorkflow } = await import("../../src/sdk/workflow.js");
  const ledger = defineWorkflow("ledger", { retries: 20, handler: async () => undefined });
  const engine = createEngine({ store: p.store, worker: false, scheduler: false, captureConsole: false });
  const dueAt = new Map<string, number>();
  const dbNow = await p.store.now();
  for (let i = 0; i < 40; i++) {
    const at = dbNow + 2_000 + i * 200;
    const h = await engine.enqueueRun(ledger, { steps: 1 }, { id: `timer-${i}`, runAt: at });
    dueAt.set(h.id, at);
  }
  const ids = await enqueueLedgerRuns(p, "clock", 300, 3, 100);

  // Cron: the tick made due on the database's clock 1 s ahead, again and again, across the jumps.
  const ticks: number[] = [];
  const tickOnce = async () => {
    const at = (await p.store.now()) + 1_000;
    ticks.push(at);
    await query(kind, p.db, "UPDATE schedules SET next_at = $1 WHERE workflow = 'tick'", [at]);
    await eventually(async () => (await p.store.getRun(`cron:tick:${new Date(at).toISOString()}`)) !== null, 20_000);
    await delay(300); // a second firing of the same tick would land here
  };
  await tickOnce();
  await tickOnce();
  clock.set(HOUR); // B jumps 1 h forward
  await tickOnce();
  await tickOnce();
  await delay(1_500);
  clock.set(-HOUR); // and 2 h back
  await tickOnce();
  await tickOnce();
  await delay(1_500);

  const all = [...ids, ...dueAt.keys()];
  await untilFinished(p.store, all, 120_000);
  const alive = procs.filter((w) => w.proc.exitCode === null && w.proc.signalCode === null).length;
  await stopAll(procs);
  for (const w of procs)
    if (w.proc.exitCode !== null) console.log(`process exited ${w.proc.exitCode}: ${w.output().slice(-2000)}`);

  const runs = await p.store.getRuns(all);
  const maxAttempt = Math.max(...runs.map((r) => r.attempt));
  const early = runs.filter((r) => dueAt.has(r.id) && (r.startedAt ?? 0) < dueAt.get(r.id)!).length;
  const tickRuns = (await p.store.listRuns({ workflow: "tick", limit: 1_000 })).map((r) => ({
    id: r.id,
    createdAt: r.createdAt,
  }));
  const firedOnce = ticks.filter(
    (at) => tickRuns.filter((r) => r.id === `cron:tick:${new Date(at).toISOString()}`).length === 1,
  ).length;
  const firedEarly = tickRuns.filter((r) => {
    const at = ticks.find((t) => r.id === `cron:tick:${new Date(t).toISOString()}`);
    return at === undefined || r.createdAt < at;
  }).length;
  const inv = await checkLedgerRuns(p, ids, 3);
  const timers = await checkLedgerRuns(p, [...dueAt.keys()], 1);
  record(
    rowOf(
      "clock skew and jumps between two servers",
      kind,
      `one server and its worker ${SKEW_MS / 1000} s ahead, then +1 h, then −1 h; ${ticks.length} cron ticks (${firedOnce} fired once, ${firedEarly} early or extra), ${dueAt.size} timers (${early} early), highest attempt ${maxAttempt}, ${alive}/4 processes up after`,
      {
        ...inv,
        runs: inv.runs + timers.runs,
        lost: inv.lost + timers.lost,
        stuck: inv.stuck + timers.stuck,
        failed: inv.failed + timers.failed,
        wrongResults: inv.wrongResults + timers.wrongResults,
        missingEffects: inv.missingEffects + timers.missingEffects,
        duplicateEffects: inv.duplicateEffects + timers.duplicateEffects,
      },
      started,
    ),
  );
  expect(alive).toBe(4);
  expect(firedOnce).toBe(ticks.length);
  expect(tickRuns).toHaveLength(ticks.length);
  // Results once: one done step row per step, whatever ran twice.
  expect(await doneSteps(kind, p.db)).toBe(ids.length * 3 + dueAt.size);
  for (const i of [inv, timers]) {
    expect(i).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0 });
    expect(i.succeeded).toBe(i.runs);
  }
  // On Postgres the database's clock decides lease expiry, due times and cron: a skewed or jumping
  // process takes no lease over early, starts no timer early and fires no tick early.
  expect(firedEarly).toBe(0);
  expect(early).toBe(0);
  expect(maxAttempt).toBe(1);
  expect(inv.duplicateEffects + timers.duplicateEffects).toBe(0);
});
