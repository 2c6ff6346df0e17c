/**
 * A cron schedule after the clock was set back, on the machine running Sluice on SQLite: a
 * `sluice server` (scheduler) and a worker whose clock (the test-only clock of `clock-preload.ts`)
 * is 1 h ahead when the server starts and syncs a minutely schedule (its next tick is then an hour
 * out on the real clock), then set right. The scheduler re-anchors the schedule
 * (`store/clock-reanchor.ts` `reanchoredNextAt`): its next tick becomes the cron's next minute from
 * the real time, and it fires then. Without the rule the schedule would not fire for an hour.
 */
import { expect, it } from "vitest";
import { spawnSluice } from "../helpers/processes.js";
import { delay, eventually } from "../helpers/tmp.js";
import { CLOCK_FILES, HOUR, query, testClock } from "./clock-preload.js";
import { chaosProject, record, type StoreKind, stopAll } from "./harness.js";

const MINUTELY = `
import { defineWorkflow } from "sluice";
export default defineWorkflow("minutely", { schedule: "* * * * *", handler: async () => "ticked" });
`;

const nextAtOf = async (db: string): Promise<number> =>
  Number(
    (await query<{ n: number }>("sqlite", db, "SELECT next_at AS n FROM schedules WHERE workflow = 'minutely'"))[0]
      ?.n ?? 0,
  );

it("a minutely cron synced while the clock was 1 h ahead fires on the real clock once it is set right (SQLite)", async () => {
  const started = Date.now();
  const kind: StoreKind = "sqlite";
  const p = await chaosProject(kind, { ...CLOCK_FILES, "workflows/minutely.ts": MINUTELY });
  const clock = testClock(p.root, HOUR);
  const procs = [
    spawnSluice(
      ["server", "--db", p.db, "--workers", "none", "--scheduler-tick", "100ms", "--port", "0"],
      p.root,
      clock.env,
    ),
    p.worker(["--concurrency", "4"], clock.env),
  ];
  await Promise.all(procs.map((w) => w.waitFor(/ready/, 30_000)));
  // Synced on the fast clock: the next tick is about an hour away on the real one.
  await eventually(async () => (await nextAtOf(p.db)) > Date.now() + HOUR - 61_000, 20_000);
  const aheadNext = await nextAtOf(p.db);

  clock.set(0); // set right
  const setAt = Date.now();
  // The scheduler sees its wall clock go back against the monotonic one and re-anchors at once.
  await eventually(async () => (await nextAtOf(p.db)) <= Date.now() + 60_000, 10_000);
  const reanchoredAfterMs = Date.now() - setAt;
  const next = await nextAtOf(p.db);
  expect(next % 60_000).toBe(0);
  expect(next).toBeGreaterThan(setAt - 1_000);

  // Rather than wait up to a minute, the clock steps forward (under a minute) to just past that tick.
  clock.set(next - Date.now() + 300);
  const tickId = `cron:minutely:${new Date(next).toISOString()}`;
  await eventually(async () => (await p.store.getRun(tickId))?.status === "succeeded", 20_000);
  await delay(500);
  clock.set(0);
  const alive = procs.filter((w) => w.proc.exitCode === null && w.proc.signalCode === null).length;
  await stopAll(procs);
  const tickRuns = await p.store.listRuns({ workflow: "minutely", limit: 1_000 });
  const early = tickRuns.filter((r) => r.id !== tickId && Date.parse(r.id.slice("cron:minutely:".length)) < next);
  const failed = tickRuns.filter((r) => r.status === "failed" || r.status === "cancelled").length;
  record({
    fault: "clock set back under a cron schedule (the SQLite machine)",
    store: kind,
    injected: `every process +1 h while the schedule syncs (next tick ${Math.round((aheadNext - setAt) / 60_000)} min out), then set right; re-anchored to the real clock's next minute in ${reanchoredAfterMs} ms; that tick fired once (${tickRuns.length} tick runs); ${alive}/2 processes up after`,
    runs: tickRuns.length,
    lost: 0,
    stuck: tickRuns.filter((r) => r.status !== "succeeded" && r.status !== "failed").length,
    failed,
    wrong: 0,
    duplicateEffects: 0,
    http5xx: 0,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  });
  expect(tickRuns.filter((r) => r.id === tickId)).toHaveLength(1);
  // Ticks fired by the fast clock before it was set right are an hour out; none between.
  expect(early).toEqual([]);
  expect(failed).toBe(0);
  expect(alive).toBe(2);
});
