/**
 * Issue 15's evidence in `npm run bench`: the cold-process W1–W4 on SQLite and Postgres, the
 * large-history variants with retention, and the timer spread. Sections are selected with flags
 * (see `bench/main.ts`); Postgres runs on a throwaway embedded cluster with durable settings.
 */
import { startCluster, type Cluster } from "../pg-cluster.js";
import { printFigures } from "../report.js";
import { coldSection, largeSection, printLimits } from "./cold-bench.js";
import { retentionFigures } from "./retention-bench.js";
import { type ColdStore, postgresStore, sqliteStore } from "./stores.js";
import { timerFigures } from "./timers-bench.js";
import { WORKLOADS } from "./workloads.js";

/** Which sections to run. */
export interface Issue15Sections {
  cold: boolean;
  large: boolean;
  /** Also seed and measure the large history on Postgres. */
  largePostgres: boolean;
  timers: boolean;
  /** Skip Postgres (`--sqlite-only`). */
  sqliteOnly?: boolean;
}

async function large(store: ColdStore, dir: string): Promise<void> {
  const db = await largeSection(store, dir);
  try {
    printFigures(`retention on ${store.name} while another process claims`, await retentionFigures(store, dir, db));
  } finally {
    await store.drop(db);
  }
}

/** Runs the selected sections, SQLite first, then Postgres. */
export async function issue15Bench(dir: string, s: Issue15Sections): Promise<void> {
  const sqlite = sqliteStore(dir);
  printLimits(sqlite);
  if (s.cold) await coldSection(sqlite, dir, WORKLOADS);
  if (s.large) await large(sqlite, dir);
  if (s.timers) printFigures("timers on SQLite", await timerFigures(sqlite));
  if (s.sqliteOnly) return;

  let cluster: Cluster | null = null;
  let pg: ColdStore | null = null;
  try {
    cluster = await startCluster();
    pg = await postgresStore(cluster.url, dir);
    printLimits(pg);
    if (s.cold) await coldSection(pg, dir, WORKLOADS);
    if (s.largePostgres) await large(pg, dir);
    if (s.timers) printFigures("timers on Postgres", await timerFigures(pg));
  } finally {
    await pg?.close();
    await cluster?.stop();
  }
}
