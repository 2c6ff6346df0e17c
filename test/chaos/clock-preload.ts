/**
 * The test-only clock of the clock faults (`clock-servers.test.ts`, `clock-jump-sqlite.test.ts`): a
 * module preloaded into Sluice processes (`NODE_OPTIONS=--import=…`) that replaces `Date.now` and
 * `new Date()` with the real clock plus an offset read from a file the test rewrites. A container
 * cannot give one process its own system clock, and changing the machine's clock is not allowed
 * here; monotonic time (`performance.now`, timers) is untouched, as on a real wall-clock jump.
 * Also a cron workflow whose tick the tests move, and SQL helpers for both stores.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { sql } from "../helpers/postgres.js";
import type { StoreKind } from "./harness.js";

/** The preload: a wall clock offset by the number in `$CHAOS_CLOCK_FILE`, re-read every 20 ms. */
export const CLOCK_PRELOAD = `
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

/** A cron workflow that never fires by itself (1 January, midnight): the tests set its next tick. */
export const TICK_WORKFLOW = `
import { defineWorkflow } from "sluice";
export default defineWorkflow("tick", { schedule: "0 0 1 1 *", handler: async () => "ticked" });
`;

/** Files for `chaosProject`: the preload and the cron workflow. */
export const CLOCK_FILES = { "clock.mjs": CLOCK_PRELOAD, "workflows/tick.ts": TICK_WORKFLOW };

export const HOUR = 3_600_000;

/** A clock for processes of the project in `root`: `set(ms)` moves it, `env` gives it to a process. */
export function testClock(root: string, offsetMs: number): { set(ms: number): void; env: Record<string, string> } {
  const file = join(root, "clock-offset");
  writeFileSync(file, String(offsetMs));
  return {
    set: (ms) => writeFileSync(file, String(ms)),
    env: {
      CHAOS_CLOCK_FILE: file,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${pathToFileURL(join(root, "clock.mjs")).href}`.trim(),
    },
  };
}

/** Runs `text` (`$1`… placeholders) on the project's database; returns the rows. */
export async function query<R>(kind: StoreKind, db: string, text: string, values: unknown[] = []): Promise<R[]> {
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
export async function doneSteps(kind: StoreKind, db: string): Promise<number> {
  const rows = await query<{ n: number | string }>(kind, db, "SELECT count(*) AS n FROM steps WHERE status = 'done'");
  return Number(rows[0]!.n);
}
