/**
 * Enqueueing from a process that runs no engine (an app's HTTP server importing its
 * workflow module to call `.enqueue()`): the process's environment names the database
 * (`SLUICE_DATABASE_URL`, else `SLUICE_DATABASE`, the same settings the CLI reads), and
 * the first `.enqueue()` or `signal()` opens a producer engine on it: no worker, no
 * scheduler, nothing claimed in this process. `sluice dev`, `sluice worker` or
 * `sluice server` on the same database run the work.
 */
import { openStore, storeReady } from "../store/open.js";
import { installRuntime, type RuntimeConnector } from "../sdk/runtime.js";
import { createEngine, type Engine } from "./engine.js";

/** The database a producer process should use, from its environment; null when none is set. */
export function databaseFromEnvironment(env: Record<string, string | undefined>): string | null {
  for (const name of ["SLUICE_DATABASE_URL", "SLUICE_DATABASE"]) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return null;
}

/**
 * A connector that opens one producer engine per process on the environment's
 * database, on first use. A failed open (e.g. Postgres unreachable) is retried by the
 * next call instead of being remembered.
 */
export function environmentConnector(env: Record<string, string | undefined> = process.env): RuntimeConnector {
  let opening: Promise<Engine> | null = null;
  return async () => {
    const database = databaseFromEnvironment(env);
    if (database === null) return null;
    opening ??= openProducer(database).catch((err) => {
      opening = null;
      throw err;
    });
    return opening;
  };
}

async function openProducer(database: string): Promise<Engine> {
  // Idle Postgres connections must not keep an app's script alive after its enqueue.
  const store = openStore(database, { allowExitOnIdle: true });
  const engine = createEngine({ store, worker: false, scheduler: false, captureConsole: false });
  try {
    await storeReady(store);
  } catch (err) {
    await engine.stop().catch(() => {});
    await store.close().catch(() => {});
    throw err;
  }
  // Never started (it runs nothing): installed as this process's runtime by hand, so later calls find it directly.
  installRuntime(engine);
  return engine;
}
