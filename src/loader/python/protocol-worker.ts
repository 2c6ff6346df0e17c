/**
 * The Python worker of the worker protocol for a project's seed-000 `@workflow` files
 * (`python3 -m wmill._wac_worker`), started and supervised by `sluice dev`: no `sluice.json`
 * `workers` row is needed. Sluice inspects and registers the files (names, parameters, code
 * versions); the process claims their runs over HTTP. The names to claim go to it as JSON
 * lines on its stdin, so a reload reaches it without a restart, and its stdin closing (Sluice
 * stopped or died) ends it. A process that exits is started again (after 0.5 s, doubling up to
 * 10 s while it keeps dying at once); a missing interpreter is said once and not retried.
 * Each process gets a worker id of its own (`SLUICE_WORKER_ID`); when it exits, {@link
 * PythonProtocolWorkerOptions.onExit} is called with that id (the CLI releases its claims at
 * once: the process is dead, so fencing makes that safe) before a restart is scheduled.
 * {@link stop} sends SIGTERM (running claims get {@link PythonProtocolWorkerOptions.drainMs} to
 * end, as the command's own worker's get theirs), then SIGKILL.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { hostname } from "node:os";
import { delimiter } from "node:path";
import type { Writable } from "node:stream";
import { PythonUnavailableError } from "./errors.js";
import { pythonSdkDir } from "./sdk-path.js";

/** Settings of the supervised Python worker. */
export interface PythonProtocolWorkerOptions {
  /** Interpreter (default `$SLUICE_PYTHON`, else `python3`). */
  python: string;
  /** The project root (the process's working directory). */
  cwd: string;
  /** The API the worker claims from (`SLUICE_URL`), and a `worker` token when it requires one. */
  url: string;
  token?: string;
  /**
   * On stop, how long running claims get to end (`SLUICE_WORKER_DRAIN_MS` of the process): the
   * command's own drain (`sluice dev` 10 s, `sluice worker --drain-timeout`). Default 5 s.
   */
  drainMs?: number;
  env: NodeJS.ProcessEnv;
  /** Where the worker's own output and the supervisor's notices go, line by line. */
  write: (line: string) => void;
  /**
   * Called once a process has exited (crash, signal, stop), with the worker id its claims were
   * made under; awaited (errors are written) before a restart is scheduled.
   */
  onExit?: (workerId: string) => Promise<void>;
}

/** Restart delays: from the first, doubling while the process keeps dying within a minute. */
const RESTART_MIN_MS = 500;
const RESTART_MAX_MS = 10_000;
const DEFAULT_DRAIN_MS = 5_000;
/** Past its drain, what the process gets to send its last writes (its outbox waits 2 s) and exit. */
const STOP_GRACE_MS = 3_000;

/** One supervised `wmill._wac_worker` process. */
export class PythonProtocolWorker {
  private child: ChildProcess | null = null;
  private input: Writable | null = null;
  private names: string[] = [];
  private stopped = false;
  private unavailable = false;
  private restartMs = RESTART_MIN_MS;
  private timer: NodeJS.Timeout | null = null;
  private startedAt = 0;
  /** Settles once the last exited process's claims are released. */
  private exited: Promise<void> = Promise.resolve();
  /** Between a process's exit and its claims' release (no new process meanwhile). */
  private releasing = false;
  /** Processes started so far (the first, then one per restart). */
  starts = 0;

  constructor(private readonly options: PythonProtocolWorkerOptions) {}

  /** Pid of the running process, or null. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Sets the workflows to claim; starts the process on the first non-empty list. */
  setWorkflows(names: readonly string[]): void {
    this.names = [...names].sort();
    if (this.stopped || this.unavailable) return;
    if (!this.child && !this.timer && !this.releasing && this.names.length > 0) this.spawn();
    else this.sendNames();
  }

  private sendNames(): void {
    this.input?.write(`${JSON.stringify({ workflows: this.names })}\n`);
  }

  private spawn(): void {
    const { env: base, write } = this.options;
    const env: NodeJS.ProcessEnv = {
      ...base,
      SLUICE_URL: this.options.url,
      PYTHONPATH: [pythonSdkDir(), base.PYTHONPATH].filter(Boolean).join(delimiter),
      PYTHONUNBUFFERED: "1",
      PYTHONDONTWRITEBYTECODE: "1",
    };
    const workerId = `python-wac:${hostname()}:${process.pid}:${this.starts + 1}`;
    env.SLUICE_WORKER_ID = workerId;
    env.SLUICE_WORKER_DRAIN_MS = String(this.drainMs);
    if (this.options.token) env.SLUICE_TOKEN = this.options.token;
    else delete env.SLUICE_TOKEN;
    const child = spawn(this.options.python, ["-m", "wmill._wac_worker"], {
      cwd: this.options.cwd,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child = child;
    this.input = child.stdin;
    this.starts++;
    this.startedAt = Date.now();
    child.stdin.on("error", () => {});
    for (const stream of [child.stdout, child.stderr]) {
      let rest = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        const lines = (rest + chunk).split("\n");
        rest = lines.pop()!;
        for (const l of lines) if (l.trim()) write(`[python] ${l}`);
      });
    }
    child.on("error", (err) => {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") {
        this.unavailable = true;
        write(`error: ${new PythonUnavailableError(this.options.python, err).message}`);
      }
    });
    child.on("exit", (code, signal) => {
      if (this.child !== child) return;
      this.child = null;
      this.input = null;
      this.releasing = true;
      this.exited = this.release(workerId).then(() => {
        this.releasing = false;
        this.afterExit(code, signal);
      });
    });
    this.sendNames();
  }

  /** Releases a dead process's claims through {@link PythonProtocolWorkerOptions.onExit}. */
  private async release(workerId: string): Promise<void> {
    try {
      await this.options.onExit?.(workerId);
    } catch (err) {
      this.options.write(`[python] could not release the exited worker's claims: ${(err as Error).message}`);
    }
  }

  /** Schedules a restart of a process that exited (unless stopped or the interpreter is missing). */
  private afterExit(code: number | null, signal: NodeJS.Signals | null): void {
    const { write } = this.options;
    if (this.stopped || this.unavailable) return;
    // Quick deaths back off; a process that ran a while restarts at the first delay.
    this.restartMs = Date.now() - this.startedAt > 60_000 ? RESTART_MIN_MS : this.restartMs;
    write(
      `[python] the Python worker exited (${signal ? `killed by ${signal}` : `exit code ${code}`}); starting it again in ${this.restartMs} ms`,
    );
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.stopped && this.names.length > 0) this.spawn();
    }, this.restartMs);
    this.timer.unref();
    this.restartMs = Math.min(RESTART_MAX_MS, this.restartMs * 2);
  }

  private get drainMs(): number {
    return this.options.drainMs ?? DEFAULT_DRAIN_MS;
  }

  /** Stops the process: its stdin closes and it gets SIGTERM (it drains); SIGKILL if it has not exited in time. */
  async stop(graceMs = this.drainMs + STOP_GRACE_MS): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return this.exited;
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    child.stdin?.end();
    child.kill("SIGTERM");
    let t: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((r) => (t = setTimeout(() => r(true), graceMs)));
    const killed = await Promise.race([exited.then(() => false), late]);
    clearTimeout(t);
    if (killed) {
      child.kill("SIGKILL");
      await exited;
    }
    await this.exited;
  }
}
