/**
 * One supervised worker command of `sluice.json` `workers` (see `external-workers.ts`).
 *
 * Modes: `running` (its process is up) → `waiting` (it exited; a restart is due after a
 * backoff, `worker-command-policy.ts`) → `running` … and, from any of them, `stopping` →
 * `stopped`. A command runs through `sh -c` in its own process group (so signals reach
 * `go run`'s child too), with `exec` in front when the line is one simple command so that the
 * printed pid is the worker's. When its process exits, what is left of its group is killed
 * before the restart (no second worker beside an orphan). {@link stop} cancels a pending
 * restart, then sends SIGTERM to the group and SIGKILL once the drain time is over.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { describeExit, execCommandLine, nextRestartDelay } from "./worker-command-policy.js";

/** How to run one command. */
export interface WorkerCommandOptions {
  /** Its `[label]` in the log: the entry's group, else `workerN`. */
  label: string;
  /** The command line, as written in `sluice.json`. */
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  write: (text: string) => void;
}

type Mode =
  | { name: "running"; proc: ChildProcess; startedAt: number }
  | { name: "waiting"; timer: NodeJS.Timeout }
  | { name: "stopping"; proc: ChildProcess | null }
  | { name: "stopped" };

/** Polling period while waiting for the rest of a process group to exit. */
const GROUP_POLL_MS = 50;

/** See the module comment. */
export class WorkerCommand {
  private mode: Mode = { name: "stopped" };
  private delayMs: number | null = null;
  /** Processes started so far (1 + restarts). */
  starts = 0;

  constructor(private readonly options: WorkerCommandOptions) {}

  /** Pid of the running process (its process group's id too), or null. */
  get pid(): number | null {
    return this.mode.name === "running" ? (this.mode.proc.pid ?? null) : null;
  }

  /** Starts the command (once: later calls do nothing; a stopped command stays stopped). */
  start(): void {
    if (this.starts === 0 && this.mode.name === "stopped") this.spawn();
  }

  private spawn(): void {
    const { label, command, write } = this.options;
    const line = execCommandLine(command);
    const proc = spawn("sh", ["-c", line ?? command], {
      cwd: this.options.cwd,
      env: this.options.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    this.starts++;
    this.mode = { name: "running", proc, startedAt: Date.now() };
    for (const stream of [proc.stdout!, proc.stderr!]) {
      let rest = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        const lines = (rest + chunk).split("\n");
        rest = lines.pop()!;
        for (const l of lines) write(`[${label}] ${l}\n`);
      });
    }
    proc.on("error", (e) => write(`[${label}] could not start ${JSON.stringify(command)}: ${e.message}\n`));
    proc.on("exit", (code, signal) => this.exited(proc, code, signal));
    const pid = proc.pid;
    const where =
      pid === undefined
        ? "not started"
        : line === null
          ? `pid ${pid} is the sh -c running it; kill -- -${pid} signals its whole process group`
          : `pid ${pid}`;
    write(`worker command [${label}]: ${command} (${where})\n`);
  }

  private exited(proc: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    const { label, write } = this.options;
    const cause = describeExit(code, signal);
    if (this.mode.name === "stopping") {
      write(`[${label}] worker command exited (${cause})\n`);
      return;
    }
    if (this.mode.name !== "running" || this.mode.proc !== proc) return;
    const upMs = Date.now() - this.mode.startedAt;
    const leftovers = killGroup(proc, "SIGKILL");
    this.delayMs = nextRestartDelay(this.delayMs, upMs);
    write(
      `[${label}] worker command exited (${cause})${leftovers ? "; killed the rest of its process group" : ""}; restarting it in ${this.delayMs / 1000} s\n`,
    );
    const timer = setTimeout(() => {
      if (this.mode.name !== "waiting" || this.mode.timer !== timer) return;
      this.spawn();
    }, this.delayMs);
    timer.unref();
    this.mode = { name: "waiting", timer };
  }

  /**
   * Stops the command for good: a pending restart is cancelled; the process group gets
   * SIGTERM (a worker drains), then SIGKILL when it has not ended within `drainMs`.
   */
  async stop(drainMs: number): Promise<void> {
    const mode = this.mode;
    if (mode.name === "stopping" || mode.name === "stopped") return;
    if (mode.name === "waiting") {
      clearTimeout(mode.timer);
      this.mode = { name: "stopped" };
      return;
    }
    const { proc } = mode;
    this.mode = { name: "stopping", proc };
    killGroup(proc, "SIGTERM");
    // The group ends when its last process does: the shell, the worker, `go run`'s child.
    const deadline = Date.now() + drainMs;
    while (Date.now() < deadline && (running(proc) || groupAlive(proc))) await sleep(GROUP_POLL_MS);
    killGroup(proc, "SIGKILL");
    if (running(proc)) await new Promise((r) => proc.once("exit", r));
    this.mode = { name: "stopped" };
  }
}

/** Whether `proc` started and has not exited (yet). */
function running(proc: ChildProcess): boolean {
  return proc.pid !== undefined && proc.exitCode === null && proc.signalCode === null;
}

/** Whether any process of `proc`'s group is still there (a zombie counts until it is reaped). */
function groupAlive(proc: ChildProcess): boolean {
  if (proc.pid === undefined) return false;
  try {
    process.kill(-proc.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Signals `proc`'s process group; true when there was one to signal. */
function killGroup(proc: ChildProcess, signal: NodeJS.Signals): boolean {
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

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
