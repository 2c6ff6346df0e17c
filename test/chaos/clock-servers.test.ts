/**
 * Clock skew and clock jumps: between two `sluice server` processes on one Postgres database, and
 * of the one machine running Sluice on SQLite.
 *
 * Server A and its worker keep the machine's clock. Server B and its worker run with a clock that
 * is first 5 s ahead, then jumps 1 h forward, then 2 h back (1 h behind). A container cannot give
 * one process its own system clock (and changing the machine's clock is not allowed here), so the
 * clock is a test-only preload (`--import`, like `clock-skew.test.ts`): it replaces `Date.now` and
 * `new Date()` with the real clock plus an offset read from a file the test rewrites. Monotonic
 * time (`performance.now`, timers) is untouched, as on a real wall-clock jump.
 *
 * Postgres: every cron tick fired exactly once, one result per step, nothing lost, stuck, failed or
 * wrong, all four processes up; and since the database's clock decides due times, lease expiry
 * and cron ticks, with a lease of 1 s the skew must not show at all: no lease taken over (every run
 * on attempt 1, no step body repeated), no timer started before its due time, no tick fired early.
 *
 * SQLite (one file, so one machine and one clock: every process jumps together): leases look
 * expired after a jump forward (takeovers, fenced), and what was scheduled while the clock was
 * ahead waits after the jump back until the clock reaches it again; then it runs. Checked: every
 * cron tick once, one result per step, nothing lost, failed or wrong, and everything finished once
 * the clock has caught up. Each ends with the invariant query.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import Database from "better-sqlite3";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { spawnSluice } from "../helpers/processes.js";
import { sql } from "../helpers/postgres.js";
import { delay, eventually } from "../helpers/tmp.js";
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

/** Test-only: a wall clock offset by the number in `$CHAOS_CLOCK_FILE`, re-read every 20 ms. */
const CLOCK = `
import { readFileSync } from "node:fs";
const RealDate = Date;
const realNow = RealDate.now.bind(RealDate);
let offset = 0;
const read = () => { try { offset = Number(readFileSync(process.env.CHAOS_CLOCK_FILE, "utf8")) || 0; } catch {} };
read();
setInterval(read, 20).unref();
class SkewedDate extends RealDate {
  constructor(...args) { super(...(args.length ? args : [realNow() + offset])); }
  static now() { return realNow() + offset; }
}
globalThis.Date = SkewedDate;
`;

const TICK = `
import { defineWorkflow } from "sluice";
export default defineWorkflow("tick", { schedule: "0 0 1 1 *", handler: async () => "ticked" });
`;

const SKEW_MS = 5_000;

/** Runs `query` (`$1`… placeholders) on the project's database; returns the rows. */
async function query<R>(kind: StoreKind, db: string, text: string, values: unknown[] = []): Promise<R[]> {
  if (kind === "postgres") return (await sql(db, text, values)) as R[];
  const file = new Database(db, { timeout: 10_000 });
  try {
    const stmt = file.prepare(text.replace(/\$\d+/g, "?"));
    return stmt.reader ? (stmt.all(...values) as R[]) : (stmt.run(...values), []);
  } finally {
    file.close();
  }
}

/** Step rows recorded done. */
async function doneSteps(kind: StoreKind, db: string): Promise<number> {
  const rows = await query<{ n: number | string }>(kind, db, "SELECT count(*) AS n FROM steps WHERE status = 'done'");
  return Number(rows[0]!.n);
}
const HOUR = 3_600_000;

it("clock skew and jumps between 2 servers on one Postgres database (lease 1 s)", async () => {
  const kind: StoreKind = "postgres";
  const started = Date.now();
  const p = await chaosProject(kind, { "clock.mjs": CLOCK, "workflows/tick.ts": TICK });
  const clockFile = join(p.root, "clock-offset");
  writeFileSync(clockFile, String(SKEW_MS));
  const skewed = {
    CHAOS_CLOCK_FILE: clockFile,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${pathToFileURL(join(p.root, "clock.mjs")).href}`.trim(),
  };
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
  writeFileSync(clockFile, String(HOUR)); // B jumps 1 h forward
  await tickOnce();
  await tickOnce();
  await delay(1_500);
  writeFileSync(clockFile, String(-HOUR)); // and 2 h back
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

it("a clock that jumps 1 h forward and back on the machine running Sluice on SQLite (lease 1 s)", async () => {
  const started = Date.now();
  const kind: StoreKind = "sqlite";
  const p = await chaosProject(kind, { "clock.mjs": CLOCK, "workflows/tick.ts": TICK });
  const clockFile = join(p.root, "clock-offset");
  writeFileSync(clockFile, "0");
  const jumping = {
    CHAOS_CLOCK_FILE: clockFile,
    CHAOS_LEDGER: p.ledgerFile,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${pathToFileURL(join(p.root, "clock.mjs")).href}`.trim(),
  };
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
  writeFileSync(clockFile, String(HOUR)); // the machine's clock jumps 1 h forward
  await delay(1_500);
  await tickOnce();
  writeFileSync(clockFile, "0"); // and is set right again
  await delay(1_500);
  await tickOnce();
  // What was scheduled while the clock was ahead now waits for the clock to get there.
  await eventually(async () => (await p.store.countRuns({ status: "running" })) === 0, 60_000);
  const [pendingLater] = await query<{ n: number }>(
    kind,
    p.db,
    "SELECT count(*) AS n FROM runs WHERE status = 'pending' AND ready_at > $1",
    [Date.now() + 10 * 60_000],
  );
  const delayed = pendingLater!.n;
  // Time passes: the clock reaches those times (jumped again rather than waited for).
  writeFileSync(clockFile, String(HOUR + 60_000));
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
      `every process +1 h, then set right; ${delayed} runs scheduled while the clock was ahead (takeovers, cron ticks) waited for it, then ran; ${ticks.length} cron ticks (${firedOnce} fired once, ${tickRuns.length} tick runs); highest attempt ${maxAttempt}; ${alive}/3 processes up after`,
      inv,
      started,
    ),
  );
  expect(alive).toBe(3);
  expect(firedOnce).toBe(ticks.length);
  expect(tickRuns.length).toBeLessThanOrEqual(ticks.length + 1);
  expect(new Set(tickRuns).size).toBe(tickRuns.length);
  expect(await doneSteps(kind, p.db)).toBe(ids.length * 3);
  expect(inv).toMatchObject({ lost: 0, stuck: 0, failed: 0, wrongResults: 0, missingEffects: 0 });
  expect(inv.succeeded).toBe(ids.length);
});
