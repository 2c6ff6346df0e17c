/**
 * One process of a `sluice.json` worker command, as both of its supervisors start it: the
 * always-on {@link WorkerCommand} (`worker-command.ts`) and the scale-to-zero lane
 * (`command-lane.ts`). It runs through `sh -c` in its own process group (so signals reach
 * `go run`'s child too), with `exec` in front when the line is one simple command so that the
 * printed pid is the worker's; its output lines are written with a `[label]` prefix; it claims
 * under a worker id of its own (`SLUICE_WORKER_ID`). The group helpers stop what is left of a
 * group once its first process has exited (no second worker beside an orphan).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { hostname } from "node:os";
import { execCommandLine } from "./worker-command-policy.js";

/** How to start one process of a command. */
export interface CommandSpawnOptions {
  /** Its `[label]` in the log: the entry's group, else `workerN`. */
  label: string;
  /** The command line, as written in `sluice.json`. */
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The id its claims are made under (`SLUICE_WORKER_ID`, {@link commandWorkerId}). */
  workerId: string;
  write: (text: string) => void;
  /** Each output line (without the prefix), after it was written. */
  onLine?: (line: string, stream: "stdout" | "stderr") => void;
}

/** A started process and how to say where it is. */
export interface SpawnedCommand {
  proc: ChildProcess;
  /**
   * `pid N` (the worker's own: the line was exec'd), `pid N is the sh -c running it; …`, or
   * `not started`.
   */
  where: string;
}

/** How often to look whether a process group is gone. */
export const GROUP_POLL_MS = 50;

/** The worker id of the `n`th process of the command at `slot` (its index in `workers`, from 1) of this Sluice process. */
export function commandWorkerId(slot: number, n: number): string {
  return `cmd${slot}:${hostname()}:${process.pid}:${n}`;
}

/** Starts one process of a command (see the module comment). */
export function spawnCommand(o: CommandSpawnOptions): SpawnedCommand {
  const line = execCommandLine(o.command);
  const proc = spawn("sh", ["-c", line ?? o.command], {
    cwd: o.cwd,
    env: { ...o.env, SLUICE_WORKER_ID: o.workerId },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  for (const [stream, name] of [
    [proc.stdout!, "stdout"],
    [proc.stderr!, "stderr"],
  ] as const) {
    let rest = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop()!;
      for (const l of lines) {
        o.write(`[${o.label}] ${l}\n`);
        o.onLine?.(l, name);
      }
    });
  }
  proc.on("error", (e) => o.write(`[${o.label}] could not start ${JSON.stringify(o.command)}: ${e.message}\n`));
  const pid = proc.pid;
  const where =
    pid === undefined
      ? "not started"
      : line === null
        ? `pid ${pid} is the sh -c running it; kill -- -${pid} signals its whole process group`
        : `pid ${pid}`;
  return { proc, where };
}

/** Whether `proc` started and has not exited (yet). */
export function running(proc: ChildProcess): boolean {
  return proc.pid !== undefined && proc.exitCode === null && proc.signalCode === null;
}

/** Whether any process of `proc`'s group is still there (a zombie counts until it is reaped). */
export function groupAlive(proc: ChildProcess): boolean {
  if (proc.pid === undefined) return false;
  try {
    process.kill(-proc.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Signals `proc`'s process group; true when there was one to signal. */
export function killGroup(proc: ChildProcess, signal: NodeJS.Signals): boolean {
  if (proc.pid === undefined) return false;
  try {
    process.kill(-proc.pid, signal);
    return true;
  } catch {
    // No group (already gone): the process itself, in case it is still there.
    if (running(proc)) proc.kill(signal);
    return false;
  }
}

/** Waits until `proc`'s group is gone or `ms` passed; true when it is gone. */
export async function groupGone(proc: ChildProcess, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && groupAlive(proc)) await sleep(GROUP_POLL_MS);
  return !groupAlive(proc);
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
