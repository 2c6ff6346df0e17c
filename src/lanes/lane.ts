/**
 * One worker lane: the worker process of one group, started on demand and gone when
 * idle. Owns its {@link LaneState}, its current process, the processes it retired
 * after a code change (they drain on their own), and its back-off times. A worker
 * command's lane (`sluice.json` `workers`, {@link LaneHooks.command}) runs that command
 * instead and keeps what its processes said they serve ({@link Lane.serves}).
 */
import type { LaneMetrics, MetricsJson } from "./lane-metrics.js";
import { type LaneCrash, summarizeLaneCrash } from "./crash-record.js";
import { LaneState } from "./lane-state.js";
import { crashRetryDelay, quietExitDelay } from "./policy.js";
import type { LaneExit, LaneProcess, LaneSpawner } from "./spawn.js";

/** What a lane needs from its supervisor. */
export interface LaneHooks {
  spawner: LaneSpawner;
  /** Supervisor log lines (lifecycle of the lane). */
  log: (text: string) => void;
  /** Wall clock for back-off times (ms). */
  now: () => number;
  /** First wait before trying a crashed lane again (doubles per crash). */
  crashRetryMs: number;
  /** This server's name, recorded with a crash. */
  server: string;
  /** The worker crashed before its first claim. */
  onCrash: (crash: LaneCrash) => void;
  /** The worker exited (the supervisor re-checks for runnable work). */
  onExit: () => void;
  /** Where the workers' metrics go (served by the server's `/metrics`); none when absent. */
  metrics?: LaneMetrics;
  /** A worker command's lane: its command line (recorded with a crash, shown in status). */
  command?: string;
  /** A process of the lane claimed its first run (the supervisor clears the lane's crash record). */
  onClaimed?: () => void;
}

/** What a worker command's processes claim: its workflows, in its groups (null: any). */
export interface LaneServes {
  workflows: string[];
  groups: string[] | null;
}

/** A snapshot of a lane for status output. */
export interface LaneInfo {
  group: string;
  mode: LaneState["mode"];
  pid: number | null;
  /** Processes retired after a code change that are still draining. */
  draining: number[];
  /** While `crashed`: why (the worker's start error, or its exit and last stderr line); else null. */
  error: string | null;
  /** A worker command's lane: its command line; null for a worker group's lane. */
  command: string | null;
  /** A worker command's lane: the workflows its processes claim (null until one asked for work, and for a group's lane). */
  workflows: string[] | null;
}

/** One lane (see the module comment). */
export class Lane {
  readonly state: LaneState;
  private proc: LaneProcess | null = null;
  private readonly retiring = new Set<LaneProcess>();
  private crashes = 0;
  private quietExits = 0;
  /** The lane does not start before this time (back-off after a crash or a quiet exit). */
  private notBefore = 0;
  private spawnedAt = 0;
  private stopped: Promise<void> | null = null;
  /** The crash that stopped the lane (while it is `crashed`). */
  private crash: LaneCrash | null = null;
  /** The current process was started only to learn what the command serves (no work was waiting). */
  private discovering = false;
  private serving: LaneServes | null = null;

  constructor(
    readonly group: string,
    private readonly hooks: LaneHooks,
  ) {
    this.state = new LaneState(group);
  }

  /** Status of this lane. */
  info(): LaneInfo {
    return {
      group: this.group,
      mode: this.state.mode,
      pid: this.proc?.pid ?? null,
      draining: [...this.retiring].map((p) => p.pid),
      error: this.state.mode === "crashed" && this.crash ? summarizeLaneCrash(this.crash) : null,
      command: this.hooks.command ?? null,
      workflows: this.serving ? [...this.serving.workflows] : null,
    };
  }

  /** A worker command's lane: what its processes last said they claim, or null before any asked for work. */
  get serves(): LaneServes | null {
    return this.serving;
  }

  /** When this lane may start again, if it is held back (else null). */
  heldUntil(): number | null {
    const mode = this.state.mode;
    return (mode === "idle" || mode === "crashed") && this.notBefore > this.hooks.now() ? this.notBefore : null;
  }

  /**
   * Runnable work is waiting in this lane's group: start a worker, unless one is up, the
   * lane is held back, or it crashed and its retry time has not come (then one probe).
   * `discover`: no work waits, the process is started to learn what a worker command serves
   * (it registers its workflows and asks for work, then exits after its idle window; that
   * clean exit without a claim holds nothing back).
   */
  demand(discover = false): void {
    const mode = this.state.mode;
    if (mode !== "idle" && mode !== "crashed") return;
    if (this.hooks.now() < this.notBefore) return;
    if (mode === "crashed") {
      this.state.setRecovered();
      this.hooks.log(`lane ${this.group}: trying a fresh worker after its crash (attempt ${this.crashes + 1})\n`);
    }
    this.start(discover);
  }

  /** A crash record was cleared elsewhere (a successful claim): a crashed lane may start again at once. */
  recover(): void {
    if (this.state.mode !== "crashed") return;
    this.state.setRecovered();
    this.crashes = 0;
    this.notBefore = 0;
  }

  /**
   * New code: the current worker drains in the background (it finishes what it runs) and
   * the next runnable work gets a fresh worker; a crashed lane gets a fresh chance.
   */
  retire(): void {
    const mode = this.state.mode;
    if (mode === "crashed") this.recover();
    else if ((mode === "starting" || mode === "running") && this.proc) {
      const old = this.proc;
      this.state.setRetired();
      this.proc = null;
      this.retiring.add(old);
      old.drain();
      this.hooks.log(
        `lane ${this.group}: new code, worker pid ${old.pid} drains its running claims; new work gets a fresh worker\n`,
      );
    }
    this.quietExits = 0;
    this.notBefore = 0;
  }

  /** Drains the worker (and retired ones) and stops the lane; kills what is still running after `drainMs`. */
  stop(drainMs: number): Promise<void> {
    this.stopped ??= this.doStop(drainMs);
    return this.stopped;
  }

  private async doStop(drainMs: number): Promise<void> {
    const procs = [...this.retiring];
    const mode = this.state.mode;
    if ((mode === "starting" || mode === "running") && this.proc) {
      this.state.setDraining();
      procs.push(this.proc);
      this.proc.drain();
    } else if (mode === "idle" || mode === "crashed") this.state.setStopped();
    if (procs.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), drainMs)));
    const all = Promise.all(procs.map((p) => p.exited));
    if ((await Promise.race([all, timeout])) === "timeout") {
      for (const p of procs) p.kill();
      await all;
    }
    clearTimeout(timer);
  }

  private start(discover: boolean): void {
    this.state.setStarting();
    this.discovering = discover;
    this.spawnedAt = this.hooks.now();
    let proc: LaneProcess;
    try {
      proc = this.hooks.spawner.spawn(this.group);
    } catch (err) {
      // No process: a crash before the first claim all the same (reported, retried after the back-off while work waits).
      return this.crashed(null, { code: null, signal: null, startError: (err as Error).message });
    }
    this.proc = proc;
    this.hooks.log(
      `lane ${this.group}: ${discover ? "learning what the command serves (it registers its workflows, then exits when idle)" : "runnable work"}, starting worker pid ${proc.pid}\n`,
    );
    proc.onMessage((m) => {
      if (m.sluiceLane === "metrics") return this.hooks.metrics?.update(proc.pid, m.metrics as MetricsJson);
      if (m.sluiceLane === "serves") return void (this.serving = { workflows: m.workflows, groups: m.groups });
      if (proc !== this.proc) return;
      if (m.sluiceLane === "claimed" && this.state.mode === "starting") {
        this.state.setRunning();
        this.crashes = 0;
        this.quietExits = 0;
        this.hooks.onClaimed?.();
        this.hooks.log(
          `lane ${this.group}: worker pid ${proc.pid} claimed its first run ${this.hooks.now() - this.spawnedAt} ms after start` +
            `${m.cpuMs === undefined ? "" : ` (${m.cpuMs} ms of CPU)`}\n`,
        );
      }
    });
    void proc.exited.then((exit) => this.exited(proc, exit));
  }

  private exited(proc: LaneProcess, exit: LaneExit): void {
    this.hooks.metrics?.retire(proc.pid);
    if (this.retiring.delete(proc)) {
      this.hooks.log(`lane ${this.group}: retired worker pid ${proc.pid} ${describeExit(exit)}\n`);
      return;
    }
    if (proc !== this.proc) return;
    this.proc = null;
    const mode = this.state.mode;
    if (mode === "draining") {
      this.state.setStopped();
      this.hooks.log(`lane ${this.group}: worker pid ${proc.pid} ${describeExit(exit)}\n`);
      return;
    }
    const failed = exit.code !== 0;
    const now = this.hooks.now();
    if (mode === "starting" && failed) {
      this.crashed(proc, exit);
    } else if (mode === "starting" && this.discovering) {
      this.state.setExited();
      this.hooks.log(`lane ${this.group}: worker pid ${proc.pid} exited (idle)\n`);
    } else if (mode === "starting") {
      this.state.setExited();
      this.quietExits++;
      this.notBefore = now + quietExitDelay(this.quietExits);
      this.hooks.log(
        `lane ${this.group}: worker pid ${proc.pid} exited without claiming a run (another worker took it?)\n`,
      );
    } else {
      this.state.setExited();
      // A worker that crashed after doing work is started again for the next work, after a second.
      if (failed) this.notBefore = now + 1_000;
      this.hooks.log(`lane ${this.group}: worker pid ${proc.pid} ${failed ? describeExit(exit) : "exited (idle)"}\n`);
    }
    this.hooks.onExit();
  }

  /**
   * The worker failed before its first claim (`proc` null: none could be started): the lane
   * stops, is reported, and tries again after the back-off while work waits.
   */
  private crashed(proc: LaneProcess | null, exit: LaneExit): void {
    this.state.setCrashed();
    this.crashes++;
    const now = this.hooks.now();
    const wait = crashRetryDelay(this.crashes, this.hooks.crashRetryMs);
    this.notBefore = now + wait;
    const what =
      exit.startError !== undefined
        ? `could not start a worker: ${exit.startError};`
        : `worker pid ${proc?.pid ?? "?"} ${describeExit(exit)} before its first claim;`;
    const command = this.hooks.command;
    const refused = command === undefined ? `new runs of group ${this.group}` : "new runs of its workflows";
    this.hooks.log(
      `lane ${this.group}: ${what} not respawning ` +
        `(${refused} are refused; next try in ${Math.round(wait / 1000)} s${command === undefined ? " if work is waiting" : ""})\n`,
    );
    this.crash = {
      group: this.group,
      server: this.hooks.server,
      exitCode: exit.code,
      signal: exit.signal,
      stderrTail: proc?.stderrTail() ?? [],
      at: now,
      ...(exit.startError !== undefined && { startError: exit.startError }),
      ...(command !== undefined && { command, workflows: [...(this.serving?.workflows ?? [])] }),
    };
    this.hooks.onCrash(this.crash);
  }
}

function describeExit(exit: LaneExit): string {
  if (exit.signal) return `was killed by ${exit.signal}`;
  return exit.code === 0 ? "exited" : `exited with code ${exit.code ?? "unknown"}`;
}
