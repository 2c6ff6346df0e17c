/**
 * The set-up the worker-SDK benches share: an engine without a worker of its own serving the
 * HTTP API on loopback (as `sluice server --workers none`), an external worker process
 * connected to it through `SLUICE_URL`, and their teardown.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createEngine, type Engine } from "../dist/index.js";
import { createApp } from "../dist/http/app.js";
import { startHttpServer } from "../dist/http/server.js";

/** The external worker to start. */
export interface ExternalWorker {
  /** Named in errors ("the Go bench worker"). */
  label: string;
  command: string;
  args?: string[];
  env?: Record<string, string>;
  /** A workflow the worker registers: the bench starts once it is known. */
  registers: string;
  /** SQLite file of the engine, under the bench's folder. */
  database: string;
}

/** Runs `body` against the engine once the worker has registered, then stops the worker, the server and the engine. */
export async function withExternalWorker<T>(
  dir: string,
  spec: ExternalWorker,
  body: (engine: Engine) => Promise<T>,
): Promise<T> {
  const engine = createEngine({
    database: join(dir, spec.database),
    worker: false,
    scheduler: false,
    captureConsole: false,
  });
  await engine.start();
  const app = createApp({ engine, auth: { mode: "off" }, uiDir: null });
  const server = await startHttpServer(app.fetch, { port: 0 });
  let worker: ChildProcess | null = null;
  try {
    worker = spawn(spec.command, spec.args ?? [], {
      env: { ...process.env, ...spec.env, SLUICE_URL: server.url },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    worker.stderr!.on("data", (d) => (err += d));
    for (let i = 0; !(await engine.store.getWorkflow(spec.registers)); i++) {
      if (i > 200) throw new Error(`${spec.label} did not register: ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return await body(engine);
  } finally {
    worker?.kill("SIGTERM");
    await new Promise((r) => (worker && worker.exitCode === null ? worker.on("exit", r) : r(null)));
    await server.close();
    await engine.stop();
  }
}
