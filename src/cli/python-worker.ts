/**
 * `sluice dev`, `sluice server` and `sluice worker` (unless `SLUICE_PYTHON_HOST=bridge`): starts the supervised Python worker that
 * claims the project's Python `@workflow` files' runs over the worker protocol
 * (`loader/python/protocol-worker.ts`), with a `worker` token when the API requires one
 * (created now, revoked when it stops).
 */
import type { Engine } from "../engine/engine.js";
import type { Project } from "../loader/project.js";
import type { Store } from "../store/types.js";

/** The running worker: {@link stop} ends it (SIGTERM, then SIGKILL) and revokes its token. */
export interface PythonWorkerHandle {
  stop(): Promise<void>;
}

/**
 * Starts the Python protocol worker of `loader`'s Python files against the API at `url`; on
 * stop, its running claims get `drainMs` to end (the command's own drain).
 */
export async function startPythonWorker(
  loader: Project,
  url: string,
  tokenStore: Store | null,
  env: NodeJS.ProcessEnv,
  write: (text: string) => void,
  drainMs: number,
): Promise<PythonWorkerHandle> {
  let tokenId: string | null = null;
  let token: string | undefined;
  // Loaded here, not at the top: a lane worker without Python files keeps the HTTP layer out of its start.
  const { ApiTokens } = await import("../http/auth/tokens.js");
  if (tokenStore) {
    const created = await new ApiTokens(tokenStore).create({ name: `python-${process.pid}`, scope: "worker" });
    tokenId = created.record.id;
    token = created.token;
  }
  loader.python.startProtocolWorker({ url, token, env, drainMs, write: (line) => write(`${line}\n`) });
  // Said when there are Python files (sluice dev starts the process too when one appears later).
  if (loader.python.names().length > 0)
    write(
      `python: the Python workflows run on a worker of the worker protocol (SLUICE_PYTHON_HOST=bridge: the stdio host instead)\n`,
    );
  return {
    async stop() {
      await loader.python.stopProtocolWorker();
      if (tokenId && tokenStore) await new ApiTokens(tokenStore).revoke(tokenId).catch(() => false);
    },
  };
}

/**
 * Whether runs of the Python files are pending or running (the Python worker's work, which the
 * built-in worker's idle time does not see): `sluice worker --exit-when-idle` waits for them.
 */
export async function pythonRunsBusy(engine: Engine, loader: Project): Promise<boolean> {
  for (const workflow of loader.python.names())
    if ((await engine.store.countRuns({ status: ["pending", "running"], workflow })) > 0) return true;
  return false;
}

/**
 * `sluice worker` on the protocol: a loopback API of its own (tokens required; the Python worker
 * gets a `worker` token) and the Python worker claiming from it. `close` stops both (the Python
 * worker's running claims get `drainMs` to end).
 */
export async function servePythonFromWorker(
  engine: Engine,
  loader: Project,
  env: NodeJS.ProcessEnv,
  write: (text: string) => void,
  drainMs: number,
): Promise<{ url: string; close(): Promise<void> }> {
  // Loaded here: a worker without Python files on the protocol starts without the HTTP layer.
  const { createApp, listen } = await import("../http/serve.js");
  const http = await listen({ host: "127.0.0.1", port: 0, env });
  http.attach(createApp({ engine, auth: { mode: "tokens" }, projectRoot: loader.root }));
  const worker = await startPythonWorker(loader, http.server.url, engine.store, env, write, drainMs);
  return {
    url: http.server.url,
    async close() {
      await worker.stop();
      await http.server.close();
    },
  };
}
