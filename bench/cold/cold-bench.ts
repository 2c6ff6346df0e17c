/**
 * `npm run bench -- --cold`: issue 15's workloads W1–W4, each measured in a fresh process on a
 * fresh database, 3 runs, medians, beside the store's raw limits and the issue's targets; and
 * `--large`: W1, W3 and W4 again on a store already holding a large history, each process beside
 * one on an empty store, with the database size per 1,000 runs.
 */
import { openBenchEngine } from "../engine-bench.js";
import { fmt, printFigures } from "../report.js";
import { seedPostgres, seedSqlite, type SeedSize } from "./seed.js";
import { measureInChild } from "./spawn.js";
import { type ColdStore, schemaOf } from "./stores.js";
import { coldFigures, flatFigures, type Results } from "./targets.js";
import type { Workload } from "./workloads.js";

/** Prints a store's raw limits. */
export function printLimits(store: ColdStore): void {
  printFigures(`machine limits (${store.name})`, [
    { name: "raw single-row durable commits, one connection", value: store.limits.commitsPerSecond, unit: "commits/s" },
    { name: "fsync (fdatasync of a 4 KiB append, median)", value: store.limits.fsyncMs, unit: "ms" },
  ]);
}

/** Measures `workloads` `runs` times each, each run in a fresh process on a fresh database. */
export async function coldRuns(
  store: ColdStore,
  dir: string,
  workloads: readonly Workload[],
  runs = 3,
): Promise<Results> {
  const results: Results = {};
  for (const w of workloads) {
    for (let i = 0; i < runs; i++) {
      const db = store.fresh(`${w}-${i}`);
      try {
        (results[w] ??= []).push(await measureInChild(w, dir, db));
      } finally {
        await store.drop(db);
      }
    }
  }
  return results;
}

/** Runs and prints the cold section of one store; returns its results. */
export async function coldSection(store: ColdStore, dir: string, workloads: readonly Workload[]): Promise<Results> {
  const results = await coldRuns(store, dir, workloads);
  printFigures(
    `cold process on ${store.name}: each run a fresh process and a fresh database (3 warm-up runs, then timed; completions read back from the store); median of 3`,
    coldFigures(results, store.limits, store.targets),
  );
  return results;
}

/** Issue 15's history: 1,000,000 finished runs and 100,000 parked (sleeps and waits). */
export const LARGE: SeedSize = { finished: 1_000_000, parked: 100_000 };

/** Fresh processes per workload on the seeded database, each beside one on an empty database. */
const LARGE_PAIRS = 5;

/**
 * Seeds a store with `size` history, measures W1, W3 and W4 on it in {@link LARGE_PAIRS} fresh
 * processes each (on that one database), each alternated with a fresh process on a fresh empty
 * database, and prints the medians side by side. Paired: a cold W1 process swings by ±20 % from
 * one to the next on this machine, as much as the target allows, so medians of 3 taken minutes
 * apart (the cold section's) said −3 % to −29 % for the same build, while copies of one seeded
 * file measured beside copies of an empty one showed no difference. Returns the seeded database
 * (the caller drops it).
 */
export async function largeSection(store: ColdStore, dir: string, size = LARGE): Promise<string> {
  const db = store.fresh("large");
  const engine = await openBenchEngine(dir, "large", db); // migrates and publishes the bench workflows
  await engine.stop();
  const t0 = performance.now();
  if (store.name === "SQLite") seedSqlite(db, size);
  else await seedPostgres(db.replace(/\?.*$/, ""), schemaOf(db), size);
  const seedS = (performance.now() - t0) / 1000;
  const runs = size.finished + size.parked;
  const bytes = await store.bytes(db);
  printFigures(
    `history on ${store.name}: ${fmt(size.finished)} finished runs (one step each), ${fmt(size.parked)} parked (half sleeping, half waiting)`,
    [
      { name: "seeded in", value: seedS, unit: "s", note: "direct SQL, one statement per table and kind" },
      {
        name: "database size per 1,000 runs",
        value: bytes / 1024 / (runs / 1000),
        unit: "KiB",
        note: `${fmt(bytes / 1024 / 1024)} MiB in all`,
      },
    ],
  );
  const large: Results = {};
  const empty: Results = {};
  for (const w of ["W1", "W3", "W4"] as const)
    for (let i = 0; i < LARGE_PAIRS; i++) {
      const fresh = store.fresh(`${w}-empty-${i}`);
      try {
        (empty[w] ??= []).push(await measureInChild(w, dir, fresh));
      } finally {
        await store.drop(fresh);
      }
      (large[w] ??= []).push(await measureInChild(w, dir, db));
    }
  printFigures(
    `cold process on ${store.name} with that history (${LARGE_PAIRS} fresh processes on the one seeded database, each alternated with one on a fresh empty database), medians`,
    flatFigures(large, empty),
  );
  return db;
}
