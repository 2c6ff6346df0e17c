/**
 * Running pipeline plans from the CLI: an engine with a worker in this process, the
 * project's pipelines attached, and only the TypeScript modules a plan needs loaded (so
 * the worker does not take other work of the project: no plain SQL or Bash script either). Other workers on the same
 * database may take steps too; the plan run is durable either way.
 */
import type { Engine } from "../../engine/engine.js";
import { Project } from "../../loader/project.js";
import { attachPipelines, type PipelineHost } from "../../pipeline/runtime/host.js";
import { storeReady } from "../../store/open.js";
import type { CliIO } from "../io.js";
import { openEngine, resolveProject } from "../project.js";

/** How the CLI's own worker runs. */
export interface LocalWorkerOptions {
  /** Run a worker in this process (default true); false only enqueues and reads. */
  worker?: boolean;
  /** Its lease length (default 30 s); a shorter one lets another process take over sooner after a crash. */
  leaseMs?: number;
}

/** Runs `fn` with a started engine and pipeline host; `load` lists the member scripts to load. */
export async function withPipelineRuntime<T>(
  io: CliIO,
  opts: { dir?: string; db?: string },
  load: readonly string[],
  fn: (host: PipelineHost, engine: Engine) => Promise<T>,
  local: LocalWorkerOptions = {},
): Promise<T> {
  const project = resolveProject(io, opts.dir, opts.db);
  const worker =
    local.worker === false
      ? false
      : { concurrency: 50, ...(local.leaseMs !== undefined && { leaseMs: local.leaseMs }) };
  // A worker here holds claims: a closed output (`… | head`) must not abandon them mid-step.
  if (worker) io.keepRunningWithoutOutput?.();
  const engine = openEngine(project, { worker, scheduler: false, captureConsole: true });
  const loader = new Project(project.root, engine);
  const host = attachPipelines(loader, {
    assets: project.config.assets,
    env: io.env,
    freshness: false,
    lakeSweep: false,
    // its worker takes pipeline work, not a plain script's run it would end with the command
    plainScripts: false,
  });
  try {
    await storeReady(engine.store);
    await engine.start();
    for (const path of load) if (/\.(m?[jt]s)$/.test(path)) await loader.loadFile(path);
    await host.start();
    return await fn(host, engine);
  } finally {
    // The engine drains first: a step still running needs the host's asset storage and runners.
    await engine.stop({ drain: 10_000 });
    await host.stop();
  }
}
