/**
 * The Python host: one `python3 -m wmill._host` process per Sluice process that runs Python
 * workflows, started on first use and again after it dies. Messages are JSON lines on extra
 * pipes (fd 3 to Python, fd 4 from it, fd 5 to it with the answers to its asset calls), so
 * what user code prints on stdout cannot be mistaken for a message; each message names the
 * execution it belongs to.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { delimiter } from "node:path";
import { PythonHostExitedError, PythonUnavailableError } from "./errors.js";
import { pythonSdkDir } from "./sdk-path.js";

/** A message from the Python host (see `sdk-python/wmill/_host.py`). */
export type HostMessage = { t: string; id?: string; [k: string]: unknown };

/** Receives one execution's messages; `exit` when the process died under it. */
export interface ExecutionListener {
  message(msg: HostMessage): void;
  exit(error: PythonHostExitedError): void;
}

/** Settings of the Python host. */
export interface PythonHostOptions {
  /** Interpreter (default `$SLUICE_PYTHON`, else `python3`). */
  python?: string;
  /** Working directory of the process (the project root). */
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Where the host's own stderr lines go (not those of runs). Default: process stderr. */
  warn?: (line: string) => void;
}

/** One Python process shared by every Python execution of this Sluice process. */
export class PythonHost {
  private child: ChildProcess | null = null;
  private input: Writable | null = null;
  private answers: Writable | null = null;
  private readonly listeners = new Map<string, ExecutionListener>();
  private partial = "";
  private closed = false;
  /** Code versions whose source this process has been sent (it compiles each once). */
  private readonly sentVersions = new Set<string>();
  /** Pid of the running Python process, or null. */
  pid: number | null = null;

  constructor(private readonly options: PythonHostOptions) {}

  /** The interpreter this host runs. */
  get python(): string {
    return this.options.python ?? this.options.env?.SLUICE_PYTHON ?? process.env.SLUICE_PYTHON ?? "python3";
  }

  /** Routes the messages of execution `id` to `listener` until {@link detach}. */
  attach(id: string, listener: ExecutionListener): void {
    this.listeners.set(id, listener);
  }

  detach(id: string): void {
    this.listeners.delete(id);
  }

  /**
   * Sends a message, starting the process first if needed.
   * @throws PythonUnavailableError when python3 cannot be started
   */
  send(msg: Record<string, unknown>): void {
    if (this.closed) throw new PythonHostExitedError("Sluice is stopping");
    if (!this.input) this.spawn();
    if (msg.t === "start" && typeof msg.version === "string") {
      // A version's source travels once per Python process, with its first run.
      if (this.sentVersions.has(msg.version)) msg = { ...msg, source: undefined, modules: undefined };
      else this.sentVersions.add(msg.version);
    }
    this.input!.write(`${JSON.stringify(msg)}\n`);
  }

  /** Answers the asset call `rid` (see `wmill/_host.py`); dropped when the process is gone. */
  answerAssetCall(answer: {
    rid: number;
    ok: boolean;
    value?: unknown;
    error?: { code: string; message: string };
  }): void {
    this.answers?.write(`${JSON.stringify(answer)}\n`);
  }

  /** Stops the process (running executions get `exit`). */
  close(): void {
    this.closed = true;
    this.child?.kill("SIGKILL");
  }

  private spawn(): void {
    const env = { ...(this.options.env ?? process.env) };
    env.PYTHONPATH = [pythonSdkDir(), env.PYTHONPATH].filter(Boolean).join(delimiter);
    env.PYTHONUNBUFFERED = "1";
    env.PYTHONDONTWRITEBYTECODE = "1";
    let child: ChildProcess;
    try {
      child = spawn(this.python, ["-m", "wmill._host"], {
        cwd: this.options.cwd,
        env,
        stdio: ["ignore", "pipe", "pipe", "pipe", "pipe", "pipe"],
      });
    } catch (err) {
      throw new PythonUnavailableError(this.python, err);
    }
    this.child = child;
    this.pid = child.pid ?? null;
    this.sentVersions.clear();
    this.partial = "";
    const input = child.stdio[3] as Writable;
    const output = child.stdio[4] as Readable;
    this.input = input;
    input.on("error", () => {});
    const answers = (child.stdio as unknown as Writable[])[5]!;
    this.answers = answers;
    answers.on("error", () => {});
    const warn = this.options.warn ?? ((l: string) => process.stderr.write(`${l}\n`));
    for (const s of [child.stdout, child.stderr]) {
      let rest = "";
      s?.setEncoding("utf8");
      s?.on("data", (chunk: string) => {
        const lines = (rest + chunk).split("\n");
        rest = lines.pop()!;
        for (const l of lines) if (l.trim()) warn(`[python] ${l}`);
      });
    }
    output.setEncoding("utf8");
    output.on("data", (chunk: string) => this.onData(chunk));
    const gone = (why: string) => {
      if (this.child !== child) return;
      this.child = null;
      this.input = null;
      this.answers = null;
      this.pid = null;
      const error = new PythonHostExitedError(why);
      const all = [...this.listeners.values()];
      this.listeners.clear();
      if (!this.closed)
        warn(`[python] the Python process exited (${why}); ${all.length} run(s) it was running are retried`);
      for (const l of all) l.exit(error);
    };
    child.on("error", (err) => gone(new PythonUnavailableError(this.python, err).message));
    child.on("exit", (code, signal) => gone(signal ? `killed by ${signal}` : `exit code ${code}`));
    // The process must not keep Sluice alive; it exits itself when its input pipe closes.
    child.unref();
    for (const s of [child.stdout, child.stderr, input, output, answers] as Array<{ unref?: () => void } | null>)
      (s as { unref?: () => void } | null)?.unref?.();
  }

  private onData(chunk: string): void {
    const lines = (this.partial + chunk).split("\n");
    this.partial = lines.pop()!;
    for (const line of lines) {
      if (!line) continue;
      let msg: HostMessage;
      try {
        msg = JSON.parse(line) as HostMessage;
      } catch {
        (this.options.warn ?? ((l: string) => process.stderr.write(`${l}\n`)))(
          `[python] unreadable message from the Python process: ${line.slice(0, 200)}`,
        );
        continue;
      }
      const listener = msg.id ? this.listeners.get(msg.id) : undefined;
      if (listener) listener.message(msg);
      else if (msg.t === "asset" && typeof msg.rid === "number")
        // Python waits for every asset call's answer: one of a claim that ended gets a refusal.
        this.answerAssetCall({
          rid: msg.rid,
          ok: false,
          error: { code: "RUN_OVER", message: "the run this asset call belongs to is no longer running here" },
        });
    }
  }
}
