/**
 * One always-on worker command of `sluice.json` `workers` (see `external-workers.ts`; a command
 * that scales to zero is a lane instead, `command-lane.ts`).
 *
 * Modes: `running` (its process is up) → `waiting` (it exited; a restart is due after a
 * backoff, `worker-command-policy.ts`) → `running` … and, from any of them, `stopping` →
 * `stopped`. A process is started as `command-process.ts` says (`sh -c`, its own process
 * group, `exec` when the line allows it). When its process exits, what is left of its group is stopped
 * before the restart (no second worker beside an orphan): SIGTERM, so a worker left behind by
 * its launcher (`go run`'s program when `go run` itself was signalled) drains, then SIGKILL after
 * {@link LEFTOVER_DRAIN_MS}. {@link stop} cancels a pending
 * restart, then sends SIGTERM to the group and SIGKILL once the drain time is over.
 *
 * Each process gets a worker id of its own in `SLUICE_WORKER_ID` (the SDKs claim under it).
 * Once a process has exited and its group is gone, {@link WorkerCommandOptions.onExit} is
 * awaited with that id (the caller ends its claims at once: nothing can write under them any
 * more) before a restart is scheduled or {@link stop} returns.
 *
 * {@link health} says whether the command keeps crashing (`/api/ready`'s `workers` check, the
 * rule in `worker-command-policy.ts`).
 */
import type { ChildProcess } from "node:child_process";
import {
  commandWorkerId,
  GROUP_POLL_MS,
  groupAlive,
  groupGone,
  killGroup,
  running,
  sleep,
  spawnCommand,
} from "./command-process.js";
import {
  type CommandHealth,
  type QuickExit,
  RESTART_STABLE_MS,
  commandHealth,
  describeExit,
  nextRestartDelay,
} from "./worker-command-policy.js";

/** How to run one command. */
export interface WorkerCommandOptions {
  /** Its `[label]` in the log: the entry's group, else `workerN`. */
  label: string;
  /** The command line, as written in `sluice.json`. */
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  write: (text: string) => void;
  /** Tells this command's worker ids from those of the other commands of this process (its index in `workers`). */
  slot?: number;
  /** Called once an exited process's group is gone, with the worker id it claimed under; errors are written. */
  onExit?: (workerId: string) => Promise<void>;
}

type Mode =
  | { name: "running"; proc: ChildProcess; startedAt: number }
  | { name: "waiting"; timer: NodeJS.Timeout | null }
  | { name: "stopping"; proc: ChildProcess | null }
  | { name: "stopped" };

/** How long an exited process's SIGKILLed group may take to go before its claims are released anyway. */
const GROUP_GONE_MS = 2_000;
/** How long what is left of an exited process's group may drain after SIGTERM before SIGKILL. */
const LEFTOVER_DRAIN_MS = 10_000;

/** See the module comment. */
export class WorkerCommand {
  private mode: Mode = { name: "stopped" };
  private delayMs: number | null = null;
  /** Settles once the last exited process's claims are released ({@link WorkerCommandOptions.onExit}). */
  private released: Promise<void> = Promise.resolve();
  /** Processes started so far (1 + restarts). */
  starts = 0;
  /** The latest exit before a process stayed up {@link RESTART_STABLE_MS} (see {@link health}). */
  private lastQuickExit: QuickExit | null = null;
  /** The last line the running (or last) process printed. */
  private lastLine: string | null = null;

  constructor(private readonly options: WorkerCommandOptions) {}

  /** Pid of the running process (its process group's id too), or null. */
  get pid(): number | null {
    return this.mode.name === "running" ? (this.mode.proc.pid ?? null) : null;
  }

  /** Whether the command is healthy: not crashing at startup or soon after (`worker-command-policy.ts`). */
  health(now = Date.now()): CommandHealth {
    const upMs = this.mode.name === "running" ? now - this.mode.startedAt : null;
    if (upMs !== null && upMs >= RESTART_STABLE_MS) this.lastQuickExit = null;
    return commandHealth(this.options.label, this.options.command, this.lastQuickExit, upMs);
  }

  /** Starts the command (once: later calls do nothing; a stopped command stays stopped). */
  start(): void {
    if (this.starts === 0 && this.mode.name === "stopped") this.spawn();
  }

  private spawn(): void {
    const { label, command, write } = this.options;
    const workerId = commandWorkerId(this.options.slot ?? 1, this.starts + 1);
    const { proc, where } = spawnCommand({
      label,
      command,
      cwd: this.options.cwd,
      env: this.options.env,
      workerId,
      write,
      onLine: (l) => {
        if (l.trim() !== "") this.lastLine = l.trim();
      },
    });
    this.starts++;
    this.lastLine = null;
    this.mode = { name: "running", proc, startedAt: Date.now() };
    proc.on("exit", (code, signal) => this.exited(proc, workerId, code, signal));
    write(`worker command [${label}]: ${command} (${where})\n`);
  }

  private exited(proc: ChildProcess, workerId: string, code: number | null, signal: NodeJS.Signals | null): void {
    const { label, write } = this.options;
    const cause = describeExit(code, signal);
    if (this.mode.name === "stopping") {
      write(`[${label}] worker command exited (${cause})\n`);
      // stop() kills what is left of the group and awaits this.
      this.released = this.release(proc, workerId);
      return;
    }
    if (this.mode.name !== "running" || this.mode.proc !== proc) return;
    const upMs = Date.now() - this.mode.startedAt;
    const streak = (this.lastQuickExit?.streak ?? 0) + 1;
    this.lastQuickExit = upMs < RESTART_STABLE_MS ? { cause, upMs, lastLine: this.lastLine, streak } : null;
    const leftovers = killGroup(proc, "SIGTERM");
    this.delayMs = nextRestartDelay(this.delayMs, upMs);
    write(
      `[${label}] worker command exited (${cause})${leftovers ? `; stopping the rest of its process group (SIGTERM: a worker drains; SIGKILL after ${LEFTOVER_DRAIN_MS / 1000} s)` : ""}; restarting it in ${this.delayMs / 1000} s\n`,
    );
    const delayMs = this.delayMs;
    // The restart's wait starts once the claims are released (no new process meanwhile).
    const waiting: Mode & { name: "waiting" } = { name: "waiting", timer: null };
    this.mode = waiting;
    this.released = this.release(proc, workerId, leftovers ? LEFTOVER_DRAIN_MS : 0).then(() => {
      if (this.mode !== waiting) return;
      waiting.timer = setTimeout(() => {
        if (this.mode === waiting) this.spawn();
      }, delayMs);
      waiting.timer.unref();
    });
  }

  /**
   * Once `proc`'s group is gone (or {@link GROUP_GONE_MS} passed), releases the claims made under
   * `workerId`. With `drainMs`, the group (sent SIGTERM) has that long to end before SIGKILL.
   */
  private async release(proc: ChildProcess, workerId: string, drainMs = 0): Promise<void> {
    const { onExit, label, write } = this.options;
    if (drainMs > 0) {
      const drained = Date.now() + drainMs;
      while (Date.now() < drained && groupAlive(proc)) await sleep(GROUP_POLL_MS);
      killGroup(proc, "SIGKILL");
    }
    if (!onExit) return;
    await groupGone(proc, GROUP_GONE_MS);
    try {
      await onExit(workerId);
    } catch (err) {
      write(`[${label}] could not release the exited worker's claims: ${(err as Error).message}\n`);
    }
  }

  /**
   * Stops the command for good: a pending restart is cancelled; the process group gets
   * SIGTERM (a worker drains), then SIGKILL when it has not ended within `drainMs`; returns
   * once the claims of its last process are released.
   */
  async stop(drainMs: number): Promise<void> {
    const mode = this.mode;
    if (mode.name === "stopping" || mode.name === "stopped") return;
    if (mode.name === "waiting") {
      if (mode.timer) clearTimeout(mode.timer);
      this.mode = { name: "stopped" };
      await this.released;
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
    await this.released;
    this.mode = { name: "stopped" };
  }
}
