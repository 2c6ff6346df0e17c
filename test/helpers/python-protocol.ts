/**
 * Runs a test project's Python files on the worker protocol (SLUICE_PYTHON_HOST=protocol):
 * the engine's API on a loopback port and the supervised `wmill._wac_worker` process claiming
 * from it, as `sluice dev` does by default (`SLUICE_PYTHON_HOST=bridge`: the stdio host instead).
 */
import { createApp } from "../../src/http/app.js";
import { listen } from "../../src/http/launch.js";
import type { Engine } from "../../src/engine/engine.js";
import type { Project } from "../../src/loader/project.js";
import { pythonHostMode } from "../../src/loader/python/project.js";

/**
 * Whether this test run's Python files run on the protocol host, as `sluice dev` would run them:
 * yes unless `SLUICE_PYTHON_HOST=bridge` (the CLI's default, `pythonHostMode`).
 */
export const PYTHON_ON_PROTOCOL = pythonHostMode(process.env) === "protocol";

/** A running API + Python worker; `close` stops both. */
export interface PythonProtocolServer {
  url: string;
  pid(): number | null;
  /** The supervisor's and the worker's lines so far. */
  output(): string[];
  close(): Promise<void>;
}

/** Call {@link Project.python}.useProtocol() before loading; then this once the project is loaded. */
export async function servePythonOverProtocol(
  engine: Engine,
  project: Project,
  options: { concurrency?: number } = {},
): Promise<PythonProtocolServer> {
  const http = await listen({ host: "127.0.0.1", port: 0 });
  http.attach(createApp({ engine, auth: { mode: "off" }, uiDir: null }));
  const lines: string[] = [];
  const worker = project.python.startProtocolWorker({
    url: http.server.url,
    env: options.concurrency ? { ...process.env, SLUICE_WORKER_CONCURRENCY: String(options.concurrency) } : process.env,
    write: (line) => {
      lines.push(line);
      if (process.env.SLUICE_TEST_VERBOSE) process.stderr.write(`${line}\n`);
    },
  });
  return {
    url: http.server.url,
    pid: () => worker.pid,
    output: () => [...lines],
    async close() {
      await project.python.stopProtocolWorker();
      await http.server.close();
    },
  };
}
