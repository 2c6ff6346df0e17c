/**
 * `npm run bench -- --timers`: 10,000 one-step runs parked with the same `ready_at`, idle worker
 * processes waiting for them (2 x 200 slots as `test/chaos/timers.test.ts`, 2 x 500, and 2 x 5,000): the
 * spread from the first start to the last (issue 15: all start within 1 s; issue 16 tests the burst as a fault, `test/chaos/timers.test.ts`) and the delay of the
 * first start. A run has started when it is claimed and its body has begun (its step's
 * `started_at`); its checkpoint and completion are not part of its start.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { createEngine, defineWorkflow } from "../../dist/index.js";
import type { Figure } from "../report.js";
import { type ColdStore, schemaOf } from "./stores.js";

const TIMERS = 10_000;
const timer = defineWorkflow("bench-timer", { handler: async (_p, ctx) => ctx.run("only", () => 1) });

function startWorker(database: string, slots: number): Promise<ChildProcess> {
  // SLUICE_BENCH_WORKER_NODE_ARGS: extra node flags for the worker processes (e.g. `--cpu-prof`).
  const nodeArgs = process.env.SLUICE_BENCH_WORKER_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  const args = [...nodeArgs, join(import.meta.dirname, "timer-worker.js"), database, String(slots)];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, SLUICE_SECRET_KEY: "sluice-bench-secret-key-0123456789" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (process.env.SLUICE_BENCH_WORKER_STDOUT) child.stdout!.pipe(process.stderr); // e.g. with --trace-gc
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("READY") && resolve(child));
    child.on("exit", (code) => reject(new Error(`timer worker exited with ${code}`)));
  });
}

/** Stops a worker; resolves with the CPU time (ms) it printed at exit, 0 if none. */
function stopWorker(child: ChildProcess): Promise<number> {
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => {
    child.removeAllListeners("exit");
    child.once("exit", () => resolve(Number(/CPU (\d+)/.exec(out)?.[1] ?? 0)));
    child.kill("SIGTERM");
  });
}

/** Runs `sql` (with `$1` … parameters) on the bench's database; resolves with its rows. */
async function query<T>(store: ColdStore, database: string, sql: string, params: unknown[] = []): Promise<T[]> {
  if (store.name === "SQLite") {
    const db = new Database(database, { timeout: 10_000 });
    try {
      const stmt = db.prepare(sql.replace(/\$\d+/g, "?"));
      return stmt.reader ? (stmt.all(...params) as T[]) : (stmt.run(...params), []);
    } finally {
      db.close();
    }
  }
  const c = new pg.Client({ connectionString: database.replace(/\?.*$/, "") });
  await c.connect();
  try {
    await c.query(`SET search_path TO ${schemaOf(database)}`);
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** `sluice worker`'s default `--concurrency`. */
const CLI_DEFAULT_SLOTS = 500;

/** How the timers are served: worker processes and slots per worker. */
export interface TimerShape {
  workers: number;
  slots: number;
}

/**
 * The shapes measured: 2 x 200 slots (the chaos test's, and the figure of earlier passes), 2 x 500
 * (`sluice worker`'s default `--concurrency`), and 2 x 5,000 (slots for the whole burst: a one-step run holds a slot from its claim to its
 * completion, so with fewer slots than due runs the later ones wait for earlier ones to finish).
 * `SLUICE_BENCH_TIMER_SHAPES=2x200,1x10000` overrides them.
 */
function shapes(): TimerShape[] {
  const env = process.env.SLUICE_BENCH_TIMER_SHAPES;
  if (!env)
    return [
      { workers: 2, slots: 200 },
      { workers: 2, slots: CLI_DEFAULT_SLOTS },
      { workers: 2, slots: 5_000 },
    ];
  return env.split(",").map((s) => {
    const [w, n] = s.split("x").map(Number);
    if (!w || !n) throw new Error(`SLUICE_BENCH_TIMER_SHAPES: "${s}" is not <workers>x<slots>, e.g. 2x200`);
    return { workers: w, slots: n };
  });
}

/** Measures the timer spread on a fresh database of `store`, for each worker shape. */
export async function timerFigures(store: ColdStore): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const shape of shapes()) figures.push(...(await timerShapeFigures(store, shape)));
  return figures;
}

interface Spread {
  first: number;
  last: number;
}

async function timerShapeFigures(store: ColdStore, shape: TimerShape): Promise<Figure[]> {
  const database = store.fresh("timers");
  const engine = createEngine({ database, workflows: [timer], worker: false, scheduler: false, captureConsole: false });
  await engine.start();
  const workers: ChildProcess[] = [];
  try {
    for (let i = 0; i < TIMERS; i += 1_000) {
      const batch = Array.from({ length: 1_000 }, (_, j) => ({ i: i + j }));
      await engine.enqueueMany(timer, batch, { runAt: Date.now() + 3_600_000 });
    }
    for (let w = 0; w < shape.workers; w++) workers.push(await startWorker(database, shape.slots));
    await new Promise((r) => setTimeout(r, 1_500)); // all idle, waiting for the next timer
    const due = Date.now() + 1_500;
    await query(
      store,
      database,
      "UPDATE runs SET ready_at = $1 WHERE status = 'pending' AND workflow = 'bench-timer'",
      [due],
    );
    for (;;) {
      const left = await engine.store.countRuns({ status: ["pending", "running", "waiting"] });
      if (left === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    // A run starts when a worker has claimed it (runs.started_at, the claim's time) and its body
    // has begun: the step's value is the wall clock its body read (timer-worker.ts). Not the
    // step's started_at: that is on the claim's clock (the claim transaction's time plus the time
    // since its answer arrived), which leaves out how long a big claim took to answer.
    const spread = async (sql: string): Promise<Spread> => {
      const [row] = await query<{ first: number | string; last: number | string }>(store, database, sql);
      return { first: Number(row!.first), last: Number(row!.last) };
    };
    const claimed = await spread(
      "SELECT MIN(started_at) AS first, MAX(started_at) AS last FROM runs WHERE workflow = 'bench-timer'",
    );
    const entered = await spread(
      "SELECT MIN(CAST(s.value AS BIGINT)) AS first, MAX(CAST(s.value AS BIGINT)) AS last FROM steps s WHERE s.key = 'only'",
    );
    const [counts] = await query<{ ok: number | string; early: number | string }>(
      store,
      database,
      "SELECT SUM(CASE WHEN status = 'succeeded' THEN 1 ELSE 0 END) AS ok, SUM(CASE WHEN started_at < $1 THEN 1 ELSE 0 END) AS early FROM runs WHERE workflow = 'bench-timer'",
      [due],
    );
    const succeeded = Number(counts!.ok);
    const early = Number(counts!.early);
    const cpuMs = (await Promise.all(workers.splice(0).map(stopWorker))).reduce((a, b) => a + b, 0);
    const bodySpread = entered.last - claimed.first;
    const label = `${shape.workers} x ${shape.slots.toLocaleString("en-US")} slots${shape.slots === CLI_DEFAULT_SLOTS ? " (the default)" : ""}`;
    return [
      {
        name: `${TIMERS.toLocaleString("en-US")} timers due at once, ${label}: first claim to last body start`,
        value: bodySpread,
        unit: "ms",
        target: "<= 1,000 ms",
        met: bodySpread <= 1_000 && succeeded === TIMERS && early === 0,
        note: `first claim ${claimed.first - due} ms after due, ${early} early; ${succeeded} succeeded; the workers' CPU ${cpuMs} ms in all (${Math.round((cpuMs * 1000) / TIMERS)} us per run; after start-up, with their drain)`,
      },
      {
        name: `  claims only (first to last claim)`,
        value: claimed.last - claimed.first,
        unit: "ms",
      },
    ];
  } finally {
    await Promise.all(workers.map(stopWorker));
    await engine.stop();
    await store.drop(database);
  }
}
