/**
 * Starting a lane's worker: a `sluice worker --group <g> --exit-when-idle` child process
 * with an IPC channel (see `worker-link.ts`). Its output goes to the server's log stream,
 * each line prefixed with `[lane <g>]`; the last stderr lines are kept for a crash report.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { isLaneMessage, LANE_ENV, type LaneMessage } from "./protocol.js";
import { LineTail } from "./policy.js";

/** How a lane's worker ended. */
export interface LaneExit {
  code: number | null;
  signal: string | null;
  /** Set when no process was started at all (spawning failed): why. */
  startError?: string;
}

/** A running lane worker, as the supervisor sees it. */
export interface LaneProcess {
  readonly pid: number;
  /** Resolves once the process has exited and its output is flushed. */
  readonly exited: Promise<LaneExit>;
  /** Called with each message the worker sends. */
  onMessage(listener: (message: LaneMessage) => void): void;
  /** Asks the worker to drain (SIGTERM: stop claiming, finish running claims, exit). */
  drain(): void;
  /** Ends the worker now (SIGKILL). */
  kill(): void;
  /** The last lines the worker wrote to stderr. */
  stderrTail(): string[];
}

/** Starts lane workers; the supervisor's only way to create processes (tests may pass their own). */
export interface LaneSpawner {
  /** @throws when the worker cannot be started (its build file cannot be written, …): the lane counts it as a crash. */
  spawn(group: string): LaneProcess;
}

/** Settings of {@link workerSpawner}: what every lane worker is started with. */
export interface WorkerSpawnerOptions {
  /** Project folder (the worker's `--dir` and working directory). */
  root: string;
  /** The database (SQLite file or Postgres URL), the worker's `--db`. */
  database: string;
  /** Idle window: the worker exits after this long without work (ms). */
  idleMs: number;
  /** Runs one worker executes at once. */
  concurrency: number;
  /** How long a draining worker waits for its running claims (ms). */
  drainMs: number;
  /** This server's name, passed as `SLUICE_SERVER_NAME` (local workflows' queues), or null. */
  server: string | null;
  /** Environment of the server; the worker inherits it. */
  env: Record<string, string | undefined>;
  /** A file listing the code versions to load (`--from-build`), or null to let the worker bundle the project itself. */
  buildFile: () => string | null;
  /** Where each output line goes (already prefixed); `stream` tells stdout from stderr. */
  output: (line: string, stream: "stdout" | "stderr") => void;
  /** `json`: the workers write JSON lines (`--log-format json`), passed on with a `lane` field instead of a prefix. Default text. */
  logFormat?: "text" | "json";
  /** The `sluice` launcher; default this package's `bin/sluice.js`. */
  bin?: string;
}

/** The launcher of this package (dist/lanes/spawn.js and src/lanes/spawn.ts are both two levels below the package). */
const DEFAULT_BIN = fileURLToPath(new URL("../../bin/sluice.js", import.meta.url));

/** Arguments of a lane worker (exported for tests and the docs). */
function laneWorkerArgs(
  group: string,
  o: Pick<WorkerSpawnerOptions, "root" | "database" | "idleMs" | "concurrency" | "drainMs" | "logFormat">,
  buildFile: string | null,
): string[] {
  const args = [
    "worker",
    "--dir",
    o.root,
    "--db",
    o.database,
    "--group",
    group,
    "--exit-when-idle",
    "--idle",
    `${o.idleMs}ms`,
  ];
  args.push("--concurrency", String(o.concurrency), "--drain-timeout", `${o.drainMs}ms`);
  if (buildFile) args.push("--from-build", buildFile);
  if (o.logFormat === "json") args.push("--log-format", "json");
  return args;
}

/** Spawns real `sluice worker` processes. */
export function workerSpawner(options: WorkerSpawnerOptions): LaneSpawner {
  return {
    spawn(group) {
      const env: Record<string, string | undefined> = { ...options.env, [LANE_ENV]: group };
      if (options.server) env.SLUICE_SERVER_NAME = options.server;
      const child = spawn(
        process.execPath,
        [options.bin ?? DEFAULT_BIN, ...laneWorkerArgs(group, options, options.buildFile())],
        {
          cwd: options.root,
          env,
          stdio: ["ignore", "pipe", "pipe", "ipc"],
        },
      );
      return wrap(child, group, options.output, options.logFormat ?? "text");
    },
  };
}

function wrap(
  child: ChildProcess,
  group: string,
  output: WorkerSpawnerOptions["output"],
  format: "text" | "json",
): LaneProcess {
  const tail = new LineTail(20);
  const prefix = `[lane ${group}] `;
  const listeners: Array<(m: LaneMessage) => void> = [];
  const streamDone = (stream: NodeJS.ReadableStream | null, name: "stdout" | "stderr") =>
    new Promise<void>((resolve) => {
      if (!stream) return resolve();
      const lines = createInterface({ input: stream, crlfDelay: Infinity });
      lines.on("line", (line) => {
        // Under json both streams carry JSON lines (a worker's warnings and errors too); the crash report keeps their text.
        const json = format === "json" ? laneJsonLine(line, group) : null;
        if (name === "stderr") tail.push(json ? messageOf(line) : line);
        output(`${json ?? prefix + line}\n`, name);
      });
      lines.on("close", () => resolve());
    });
  const flushed = Promise.all([streamDone(child.stdout, "stdout"), streamDone(child.stderr, "stderr")]);
  const exit = new Promise<LaneExit>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal }));
    // spawn itself failed (no such file, too many processes): report it as a crash.
    child.on("error", (err) => {
      tail.push(`could not start the worker: ${err.message}`);
      resolve({ code: null, signal: null, ...(child.pid === undefined && { startError: err.message }) });
    });
  });
  child.on("message", (m) => {
    if (isLaneMessage(m)) for (const l of listeners) l(m);
  });
  return {
    pid: child.pid ?? -1,
    exited: exit.then(async (e) => {
      await Promise.race([flushed, new Promise((r) => setTimeout(r, 1_000))]);
      return e;
    }),
    onMessage: (l) => void listeners.push(l),
    drain: () => void (child.exitCode === null && child.signalCode === null && child.kill("SIGTERM")),
    kill: () => void (child.exitCode === null && child.signalCode === null && child.kill("SIGKILL")),
    stderrTail: () => tail.get(),
  };
}

/** The `msg` of a JSON log line (the line itself when it has none). */
function messageOf(line: string): string {
  const msg = (JSON.parse(line) as { msg?: unknown }).msg;
  return typeof msg === "string" ? msg : line;
}

/** A worker's JSON log line with its lane added (`{"lane": group, ...}`), or null when the line is not a JSON object. */
function laneJsonLine(line: string, group: string): string | null {
  if (!line.startsWith("{")) return null;
  try {
    const value = JSON.parse(line) as unknown;
    if (!value || typeof value !== "object" || Array.isArray(value)) return null;
    return JSON.stringify({ lane: group, ...(value as Record<string, unknown>) });
  } catch {
    return null;
  }
}
