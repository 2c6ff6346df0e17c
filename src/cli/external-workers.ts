/**
 * Worker commands of `sluice.json` `workers` (issue 12): processes in other languages
 * (the Go SDK) that `sluice dev` and `sluice server` start beside the HTTP API. Each gets
 * `SLUICE_URL` and, when the API requires tokens, `SLUICE_TOKEN` (a `worker` token created
 * for this server and revoked when it stops). Their output is shown line by line with a
 * `[group]` prefix.
 *
 * Where a lane supervisor runs (`sluice server`, `sluice dev --workers separate`), a command
 * scales to zero unless its entry says `"scaleToZero": false`: it is a lane of the supervisor
 * (`command-lane.ts`), started while its workflows have runnable work and gone after its idle
 * window (seed 002: "Go and container workers use a single lane"). Otherwise (`sluice dev`'s
 * in-process workers, `--workers none`, or `false`) it is always on: a command that exits is
 * started again after a backoff (1 s, doubling up to 30 s while it keeps dying;
 * `worker-command.ts`). On stop they get SIGTERM (they drain), then SIGKILL after `drainMs`,
 * and are not restarted.
 * Each process claims under a worker id of its own (`SLUICE_WORKER_ID`); when it exits, the
 * claims the API answered under that id are released at once (`releaseExternalWorker`: the
 * process is dead, so fencing makes that safe) instead of waiting for their leases.
 * A command that exits soon after it started makes `/api/ready` not ready until a process of it
 * stays up a minute (`health`, `worker-command-policy.ts`).
 * Python workers find Sluice's SDK (`from wmill.worker import …`): its folder is appended
 * to `PYTHONPATH`, and their output is unbuffered so lines show as they are printed.
 */
import { delimiter, join } from "node:path";
import type { Engine } from "../engine/engine.js";
import { describeRelease, releaseExternalWorker } from "../engine/external-leases.js";
import { ApiTokens } from "../http/auth/tokens.js";
import { pythonSdkDir } from "../loader/python/sdk-path.js";
import type { Store } from "../store/types.js";
import type { LaneSupervisor } from "../lanes/supervisor.js";
import { commandLaneSpawner } from "./command-lane.js";
import type { ExternalWorkerConfig } from "./config.js";
import { WorkerCommand } from "./worker-command.js";
import type { CommandHealth } from "./worker-command-policy.js";

/** What {@link startExternalWorkers} needs. */
export interface ExternalWorkerOptions {
  entries: readonly ExternalWorkerConfig[];
  root: string;
  /** The API's URL, given to the workers as SLUICE_URL. */
  url: string;
  /** The store whose tokens the API checks; null when the API needs no token. */
  tokenStore: Store | null;
  /** The engine behind the API: an exited worker's claims are released in it. */
  engine: Engine;
  env: NodeJS.ProcessEnv;
  write: (text: string) => void;
  /** The lane supervisor that runs scale-to-zero commands and their idle window (ms); null: every command is always on. */
  lanes?: { supervisor: LaneSupervisor; idleMs: number } | null;
}

/** Running worker commands. */
export interface ExternalWorkers {
  /** Cancels pending restarts; SIGTERM to each (its process group), SIGKILL after `drainMs`; revokes the token. */
  stop(drainMs: number): Promise<void>;
  /** Each always-on command's health, for `/api/ready` (none: empty; a lane's crash is the `lanes` check's). */
  health(): CommandHealth[];
}

/** The name of a worker command's lane (`/api/lanes`, logs, its crash record). */
function commandLaneName(label: string): string {
  return `command:${label}`;
}

/** Starts the worker commands (none: a no-op handle). */
export async function startExternalWorkers(options: ExternalWorkerOptions): Promise<ExternalWorkers> {
  const { entries, write } = options;
  if (entries.length === 0) return { stop: async () => {}, health: () => [] };
  let tokenId: string | null = null;
  const env: NodeJS.ProcessEnv = { ...options.env, SLUICE_URL: options.url, ...pythonEnv(options.env) };
  if (options.tokenStore) {
    const created = await new ApiTokens(options.tokenStore).create({ name: `workers-${process.pid}`, scope: "worker" });
    tokenId = created.record.id;
    env.SLUICE_TOKEN = created.token;
  }
  const lanes = options.lanes ?? null;
  const commands: WorkerCommand[] = [];
  entries.forEach((entry, i) => {
    const label = entry.group ?? `worker${i + 1}`;
    const cwd = join(options.root, entry.dir ?? ".");
    const onExit = async (workerId: string) => {
      const runs = await releaseExternalWorker(options.engine, workerId);
      if (runs.length) write(`[${label}] ${describeRelease(runs, "worker")}\n`);
    };
    if (lanes && entry.scaleToZero !== false) {
      const name = commandLaneName(label);
      write(
        `worker command [${label}]: ${entry.command} (scales to zero: lane ${name}, started while its workflows have runnable work, exits after ${lanes.idleMs} ms idle)\n`,
      );
      lanes.supervisor.addCommand({
        name,
        command: entry.command,
        spawner: commandLaneSpawner({
          label,
          command: entry.command,
          cwd,
          env,
          idleMs: lanes.idleMs,
          slot: i + 1,
          events: options.engine.events,
          write,
          onExit,
        }),
      });
      return;
    }
    const command = new WorkerCommand({ label, command: entry.command, cwd, env, write, slot: i + 1, onExit });
    command.start();
    commands.push(command);
  });
  return {
    health: () => commands.map((c) => c.health()),
    async stop(drainMs) {
      await Promise.all([...commands.map((c) => c.stop(drainMs)), lanes?.supervisor.stopCommands(drainMs)]);
      if (tokenId && options.tokenStore) await new ApiTokens(options.tokenStore).revoke(tokenId).catch(() => false);
    },
  };
}

/** `PYTHONPATH` with Sluice's Python SDK appended (the user's entries win), and unbuffered output. */
function pythonEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  let sdk: string;
  try {
    sdk = pythonSdkDir();
  } catch {
    return {}; // an installation without the Python SDK: Python workers bring their own
  }
  const path = [env.PYTHONPATH, sdk].filter((p) => p).join(delimiter);
  return { PYTHONPATH: path, PYTHONUNBUFFERED: env.PYTHONUNBUFFERED ?? "1" };
}
