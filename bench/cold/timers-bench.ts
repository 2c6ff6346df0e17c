/**
 * `npm run bench -- --timers`: 10,000 one-step runs parked with the same `ready_at`, two idle
 * worker processes of 200 slots each (as `test/chaos/timers.test.ts`): the spread from the first
 * start to the last (issue 15: all start within 1 s) and the delay of the first start.
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

function startWorker(database: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(import.meta.dirname, "timer-worker.js"), database, "200"], {
    env: { ...process.env, SLUICE_SECRET_KEY: "sluice-bench-secret-key-0123456789" },
    stdio: ["ignore", "pipe", "inherit"],
  });
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

async function setReadyAt(store: ColdStore, database: string, due: number): Promise<void> {
  const sql = "UPDATE runs SET ready_at = $1 WHERE status = 'pending' AND workflow = 'bench-timer'";
  if (store.name === "SQLite") {
    const db = new Database(database, { timeout: 10_000 });
    db.prepare(sql.replace("$1", "?")).run(due);
    db.close();
    return;
  }
  const c = new pg.Client({ connectionString: database.replace(/\?.*$/, "") });
  await c.connect();
  await c.query(`SET search_path TO ${schemaOf(database)}`);
  await c.query(sql, [due]);
  await c.end();
}

/** Measures the timer spread on a fresh database of `store`. */
export async function timerFigures(store: ColdStore): Promise<Figure[]> {
  const database = store.fresh("timers");
  const engine = createEngine({ database, workflows: [timer], worker: false, scheduler: false, captureConsole: false });
  await engine.start();
  const workers: ChildProcess[] = [];
  try {
    const ids: string[] = [];
    for (let i = 0; i < TIMERS; i += 1_000) {
      const batch = Array.from({ length: 1_000 }, (_, j) => ({ i: i + j }));
      ids.push(...(await engine.enqueueMany(timer, batch, { runAt: Date.now() + 3_600_000 })).map((h) => h.id));
    }
    workers.push(await startWorker(database), await startWorker(database));
    await new Promise((r) => setTimeout(r, 1_500)); // both idle, waiting for the next timer
    const due = Date.now() + 1_500;
    await setReadyAt(store, database, due);
    for (;;) {
      const left = await engine.store.countRuns({ status: ["pending", "running", "waiting"] });
      if (left === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const runs = await engine.store.getRuns(ids);
    const starts = runs.map((r) => r.startedAt).filter((t): t is number => t !== null);
    const succeeded = runs.filter((r) => r.status === "succeeded").length;
    const first = Math.min(...starts);
    const spread = Math.max(...starts) - first;
    const cpuMs = (await Promise.all(workers.splice(0).map(stopWorker))).reduce((a, b) => a + b, 0);
    return [
      {
        name: `${TIMERS.toLocaleString("en-US")} timers due at once: spread of starts`,
        value: spread,
        unit: "ms",
        target: "<= 1,000 ms",
        met: spread <= 1_000 && succeeded === TIMERS,
        note: `2 worker processes x 200 slots; first start ${first - due} ms after due; ${succeeded} succeeded; the workers' CPU ${cpuMs} ms in all (${Math.round((cpuMs * 1000) / TIMERS)} us per run; after start-up, with their drain)`,
      },
    ];
  } finally {
    await Promise.all(workers.map(stopWorker));
    await engine.stop();
    await store.drop(database);
  }
}
