/**
 * `sluice dev` with `SLUICE_PYTHON_HOST=protocol`: starts the supervised Python worker that
 * claims the project's Python `@workflow` files' runs over the worker protocol
 * (`loader/python/protocol-worker.ts`), with a `worker` token when the API requires one
 * (created now, revoked when it stops).
 */
import { ApiTokens } from "../http/auth/tokens.js";
import type { Project } from "../loader/project.js";
import type { Store } from "../store/types.js";

/** The running worker: {@link stop} ends it (SIGTERM, then SIGKILL) and revokes its token. */
export interface PythonWorkerHandle {
  stop(): Promise<void>;
}

/** Starts the Python protocol worker of `loader`'s Python files against the API at `url`. */
export async function startPythonWorker(
  loader: Project,
  url: string,
  tokenStore: Store | null,
  env: NodeJS.ProcessEnv,
  write: (text: string) => void,
): Promise<PythonWorkerHandle> {
  let tokenId: string | null = null;
  let token: string | undefined;
  if (tokenStore) {
    const created = await new ApiTokens(tokenStore).create({ name: `python-${process.pid}`, scope: "worker" });
    tokenId = created.record.id;
    token = created.token;
  }
  loader.python.startProtocolWorker({ url, token, env, write: (line) => write(`${line}\n`) });
  write(`python: the Python workflows run on a worker of the worker protocol (SLUICE_PYTHON_HOST=protocol)\n`);
  return {
    async stop() {
      await loader.python.stopProtocolWorker();
      if (tokenId && tokenStore) await new ApiTokens(tokenStore).revoke(tokenId).catch(() => false);
    },
  };
}
