/**
 * Clock skew between two servers on one SQLite file, where the scheduler's leadership is a lease
 * row written on each process's wall clock: a `sluice server` whose clock (the test-only clock of
 * `clock-preload.ts`) runs 1 h ahead takes the leadership over from the server on the right clock
 * (its now is past the other's expiry), so the row's expiry is an hour late on the real clock. The
 * right-clock server notes such a leadership at each lead, and takes it when it is still noted a
 * whole length later (`store/leadership-rule.ts`, from the `ttl_ms` every lead records; a renewal
 * clears the note):
 *
 * - while the fast server lives, its renewals clear each note and it keeps leading;
 * - once it is SIGKILLed, the right-clock server leads within about one length (5 s here), not
 *   after the hour, so cron, retention and re-anchoring go on.
 */
import { expect, it } from "vitest";
import { spawnSluice } from "../helpers/processes.js";
import { delay, eventually } from "../helpers/tmp.js";
import { CLOCK_FILES, HOUR, query, testClock } from "./clock-preload.js";
import { chaosProject, record, stopAll } from "./harness.js";

interface LeaderRow {
  holder: string;
  expiresAt: number;
  noticedAt: number | null;
}

it("a server 1 h ahead leads while alive and, SIGKILLed, hands the scheduler to the right-clock server within a length (SQLite)", async () => {
  const started = Date.now();
  const p = await chaosProject("sqlite", CLOCK_FILES);
  const clock = testClock(p.root, HOUR);
  const leader = async (): Promise<LeaderRow | undefined> =>
    (
      await query<LeaderRow>(
        "sqlite",
        p.db,
        "SELECT holder, expires_at AS expiresAt, noticed_at AS noticedAt FROM leaders WHERE name = 'scheduler'",
      )
    )[0];
  const args = ["server", "--db", p.db, "--workers", "none", "--scheduler-tick", "100ms", "--port", "0"];
  const right = spawnSluice(args, p.root);
  await right.waitFor(/ready/, 30_000);
  await eventually(async () => (await leader())?.holder.startsWith(`scheduler:${right.proc.pid}:`) === true, 10_000);
  const fast = spawnSluice(args, p.root, clock.env);
  await fast.waitFor(/ready/, 30_000);
  const fastHolder = `scheduler:${fast.proc.pid}:`;
  await eventually(async () => (await leader())?.holder.startsWith(fastHolder) === true, 10_000);

  // Both live for 6 s (more than a length): the fast server keeps leading, its lease an hour late.
  let noted = 0;
  let kept = 0;
  let polls = 0;
  const end = Date.now() + 6_000;
  while (Date.now() < end) {
    const row = await leader();
    polls++;
    if (row?.holder.startsWith(fastHolder) && row.expiresAt > Date.now() + HOUR - 60_000) kept++;
    if (row?.noticedAt !== null && row?.noticedAt !== undefined) noted++;
    await delay(25);
  }

  fast.proc.kill("SIGKILL");
  await fast.exited;
  const killedAt = Date.now();
  // Without the rule the right-clock server would wait for the hour; 30 s is six lengths.
  await eventually(async () => (await leader())?.holder.startsWith(`scheduler:${right.proc.pid}:`) === true, 30_000);
  const tookOverAfterMs = Date.now() - killedAt;
  const alive = right.proc.exitCode === null && right.proc.signalCode === null;
  await stopAll([right]);
  record({
    fault: "clock skew: a server 1 h ahead dies leading the scheduler (SQLite)",
    store: "sqlite",
    injected: `server +1 h took the leadership (length 5 s, ending 1 h late) and kept it ${kept}/${polls} polls over 6 s, noted ${noted} times by the right-clock server; SIGKILL; the right-clock server led ${tookOverAfterMs} ms after the kill`,
    runs: 0,
    lost: 0,
    stuck: 0,
    failed: 0,
    wrong: 0,
    duplicateEffects: 0,
    http5xx: 0,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  });
  expect(kept).toBe(polls);
  expect(noted).toBeGreaterThan(0);
  expect(tookOverAfterMs).toBeLessThan(15_000);
  expect(alive).toBe(true);
});
