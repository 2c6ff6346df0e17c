/**
 * The fault matrix's shared parts (`npm run test:chaos`): a project whose workflows write a
 * ledger of side effects (one line per step body executed), worker processes that can be killed,
 * stopped and restarted, the invariant query every fault ends with, and the matrix row each
 * fault records (printed by `matrix-report.ts` when the run ends).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll } from "vitest";
import { openPostgresStore } from "../../src/store/postgres/store.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";
import { testDatabase } from "../helpers/postgres.js";
import { makeProject, REPO } from "../helpers/project.js";
import { spawnSluice, type SluiceProcess } from "../helpers/processes.js";
import { delay } from "../helpers/tmp.js";

/** Which store a fault runs on. */
export type StoreKind = "sqlite" | "postgres";

/** A workflow of `steps` checkpointed steps; each step body appends `<run>:<step>` to the ledger first. */
const LEDGER = `
import { appendFileSync } from "node:fs";
import { defineWorkflow } from "sluice";
export default defineWorkflow<{ steps: number; ms?: number }>("ledger", {
  retries: 20,
  handler: async (p, ctx) => {
    let sum = 0;
    for (let i = 0; i < p.steps; i++) {
      sum += await ctx.run("s" + i, async (step) => {
        appendFileSync(process.env.CHAOS_LEDGER!, step.runId + ":s" + i + "\\n");
        if (p.ms) await new Promise((r) => setTimeout(r, p.ms));
        return i;
      });
    }
    return { sum };
  },
});
`;

/** A project on a fresh database of `kind`, with the ledger workflow. */
export interface ChaosProject {
  kind: StoreKind;
  root: string;
  /** `--db` value for the CLI. */
  db: string;
  store: Store;
  ledgerFile: string;
  /** Starts a `sluice worker` (with `--db`, short lease) that writes to the ledger; `env` adds variables. */
  worker(extra?: string[], env?: Record<string, string>): SluiceProcess;
  /** Ledger lines: how many times each `<run>:<step>` body ran. */
  ledger(): Map<string, number>;
}

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => undefined);
});

/** Where a project's database is, when not a fresh one on the tests' cluster. */
export interface ChaosDatabase {
  /** SQLite file path, or Postgres URL of an existing empty database (e.g. on a cluster the test restarts). */
  db?: string;
  /** URL the workers use instead of `db` (e.g. through a proxy that injects faults). */
  workerDb?: string;
}

/** See {@link ChaosProject}. */
export async function chaosProject(
  kind: StoreKind,
  files: Record<string, string> = {},
  where: ChaosDatabase = {},
): Promise<ChaosProject> {
  const root = makeProject({ "workflows/ledger.ts": LEDGER, ...files });
  const db = where.db ?? (kind === "sqlite" ? join(root, ".sluice", "sluice.db") : await testDatabase("chaos"));
  const workerDb = where.workerDb ?? db;
  const store = kind === "sqlite" ? openSqliteStore({ path: db }) : openPostgresStore(db);
  stores.push(store);
  const ledgerFile = join(root, "ledger.txt");
  return {
    kind,
    root,
    db,
    store,
    ledgerFile,
    worker: (extra = [], env = {}) =>
      spawnSluice(["worker", "--db", workerDb, "--lease", "1s", "--quiet", ...extra], root, {
        CHAOS_LEDGER: ledgerFile,
        ...env,
      }),
    ledger: () => {
      const counts = new Map<string, number>();
      if (!existsSync(ledgerFile)) return counts;
      for (const line of readFileSync(ledgerFile, "utf8").split("\n"))
        if (line) counts.set(line, (counts.get(line) ?? 0) + 1);
      return counts;
    },
  };
}

/** What every fault checks at its end. */
export interface Invariants {
  runs: number;
  succeeded: number;
  /** Enqueued runs missing from the store. */
  lost: number;
  /** Runs not finished when the fault's deadline passed. */
  stuck: number;
  /** Runs that finished `failed` or `cancelled` (none of the faults should cause one). */
  failed: number;
  /** Step bodies that ran more than once (at-least-once: reported, not a failure). */
  duplicateEffects: number;
  /** Steps that succeeded without a ledger line (a result recorded for work that never ran). */
  missingEffects: number;
  /** Succeeded runs whose result is not the one its steps produce. */
  wrongResults: number;
}

/**
 * Reads the store and the ledger for `ids` (ledger runs of `steps` steps each) and counts
 * what the fault matrix promises: nothing lost, stuck, failed or wrong; duplicates counted.
 */
export async function checkLedgerRuns(p: ChaosProject, ids: string[], steps: number): Promise<Invariants> {
  const ledger = p.ledger();
  const runs = await p.store.getRuns(ids);
  const byId = new Map(runs.map((r) => [r.id, r]));
  const inv: Invariants = {
    runs: ids.length,
    succeeded: 0,
    lost: 0,
    stuck: 0,
    failed: 0,
    duplicateEffects: 0,
    missingEffects: 0,
    wrongResults: 0,
  };
  const expected = JSON.stringify({ sum: (steps * (steps - 1)) / 2 });
  for (const id of ids) {
    const run = byId.get(id);
    if (!run) {
      inv.lost++;
      continue;
    }
    if (run.status === "succeeded") inv.succeeded++;
    else if (run.status === "failed" || run.status === "cancelled") inv.failed++;
    else inv.stuck++;
    if (run.status === "succeeded" && JSON.stringify(JSON.parse(run.result!)) !== expected) inv.wrongResults++;
    for (let i = 0; i < steps; i++) {
      const n = ledger.get(`${id}:s${i}`) ?? 0;
      if (n > 1) inv.duplicateEffects += n - 1;
      if (n === 0 && run.status === "succeeded") inv.missingEffects++;
    }
  }
  return inv;
}

/** Enqueues `n` ledger runs through the store (ids `<prefix>-<i>`), in batches. */
export async function enqueueLedgerRuns(p: ChaosProject, prefix: string, n: number, steps: number, ms = 0) {
  const { createEngine } = await import("../../src/engine/engine.js");
  const { defineWorkflow } = await import("../../src/sdk/workflow.js");
  // A producer: the definition gives the settings (the workers publish the real one when they start).
  const ledger = defineWorkflow("ledger", { retries: 20, handler: async () => undefined });
  const engine = createEngine({ store: p.store, worker: false, scheduler: false, captureConsole: false });
  const ids: string[] = [];
  for (let i = 0; i < n; i += 100) {
    const batch = Array.from({ length: Math.min(100, n - i) }, (_, k) => `${prefix}-${i + k}`);
    await Promise.all(batch.map((id) => engine.enqueueRun(ledger, { steps, ms }, { id })));
    ids.push(...batch);
  }
  return ids;
}

/** Waits until every run in `ids` is finished or `deadlineMs` passes. */
export async function untilFinished(store: Store, ids: string[], deadlineMs: number): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    // A read that fails (the database restarting under the fault) counts as not finished yet.
    const runs = await store.getRuns(ids).catch(() => []);
    if (runs.length === ids.length && runs.every((r) => ["succeeded", "failed", "cancelled"].includes(r.status)))
      return;
    await delay(200);
  }
}

/** Stops worker processes and waits for them to exit. */
export async function stopAll(procs: SluiceProcess[]): Promise<void> {
  for (const w of procs) if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill("SIGKILL");
  await Promise.all(procs.map((w) => w.exited));
}

/** One row of the matrix. */
export interface MatrixRow {
  fault: string;
  store: StoreKind | "-";
  /** What the fault did (kills, stops, requests…). */
  injected: string;
  runs: number;
  lost: number;
  stuck: number;
  failed: number;
  wrong: number;
  duplicateEffects: number;
  http5xx: number;
  seconds: number;
  note?: string;
}

/** Where rows go (read by `matrix-report.ts`). */
const ROWS_FILE = join(REPO, "test-artifacts", "chaos", "rows.jsonl");

/** Records a matrix row. */
export function record(row: MatrixRow): void {
  mkdirSync(join(REPO, "test-artifacts", "chaos"), { recursive: true });
  appendFileSync(ROWS_FILE, `${JSON.stringify(row)}\n`);
}

/** A row from invariants. */
export function rowOf(
  fault: string,
  store: StoreKind | "-",
  injected: string,
  inv: Invariants,
  started: number,
  extra: Partial<MatrixRow> = {},
): MatrixRow {
  return {
    fault,
    store,
    injected,
    runs: inv.runs,
    lost: inv.lost,
    stuck: inv.stuck,
    failed: inv.failed,
    wrong: inv.wrongResults + inv.missingEffects,
    duplicateEffects: inv.duplicateEffects,
    http5xx: 0,
    seconds: Math.round((Date.now() - started) / 100) / 10,
    ...extra,
  };
}
