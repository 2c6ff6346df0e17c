/**
 * CLI wiring of worker lanes (scale to zero) shared by `sluice server` and
 * `sluice dev --workers separate`: the options, and a supervisor whose lane workers are
 * `sluice worker` processes on the project's database, logging into this command's output.
 */
import type { Command } from "commander";
import type { Engine } from "../engine/engine.js";
import { writeBuildManifest } from "../lanes/build-manifest.js";
import { workerSpawner } from "../lanes/spawn.js";
import { LaneSupervisor } from "../lanes/supervisor.js";
import type { Project } from "../loader/project.js";
import { InvalidInputError } from "../sdk/errors.js";
import { defaultServerName } from "../store/local-scope.js";
import type { CliIO } from "./io.js";
import { parseCount, parseDurationOption } from "./options.js";
import type { ProjectContext } from "./project.js";

/** Lane settings parsed from the command line. */
export interface LaneSettings {
  idleMs: number;
  concurrency: number;
  crashRetryMs: number;
}

/** Adds `--lane-idle`, `--lane-concurrency` and `--lane-retry` to a command. */
export function laneOptions(command: Command): Command {
  return command
    .option(
      "--lane-idle <duration>",
      "with separate workers: a lane's worker exits after this long without work",
      "30s",
    )
    .option("--lane-concurrency <n>", "with separate workers: runs each lane's worker executes at once", "500")
    .option(
      "--lane-retry <duration>",
      "with separate workers: after a worker crashes at startup, wait this long (doubling) before trying again while work waits",
      "30s",
    );
}

/** Parses the lane options. */
export function parseLaneSettings(opts: {
  laneIdle: string;
  laneConcurrency: string;
  laneRetry: string;
}): LaneSettings {
  return {
    idleMs: parseDurationOption(opts.laneIdle, "--lane-idle"),
    concurrency: Math.max(1, parseCount(opts.laneConcurrency, "--lane-concurrency")),
    crashRetryMs: Math.max(100, parseDurationOption(opts.laneRetry, "--lane-retry")),
  };
}

/** `--workers`: one of `allowed`, else a clear error. */
export function parseWorkersMode<T extends string>(value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new InvalidInputError(`--workers "${value}" is not one of ${allowed.join(", ")}`, {
    code: "INVALID_WORKERS_MODE",
  });
}

/** Creates (not starts) the supervisor of this command's lanes. */
export function createLanes(args: {
  engine: Engine;
  loader: Project;
  project: ProjectContext;
  settings: LaneSettings;
  io: CliIO;
  write: (text: string) => void;
  /** The command's `--log-format`, passed on to the lane workers. */
  logFormat?: "text" | "json";
}): LaneSupervisor {
  const { engine, loader, project, settings, io, write } = args;
  const spawner = workerSpawner({
    root: project.root,
    database: project.dbPath,
    idleMs: settings.idleMs,
    concurrency: settings.concurrency,
    drainMs: 10_000,
    server: engine.localServer,
    // Lane workers leave the Python files to this process's Python worker exactly when it has one.
    env: { ...io.env, SLUICE_PYTHON_HOST: loader.python.onProtocol ? "protocol" : "bridge" },
    buildFile: () => writeBuildManifest(project.root, loader.builds()),
    output: (line, stream) => (stream === "stderr" ? io.stderr(line) : io.stdout(line)),
    logFormat: args.logFormat,
  });
  return new LaneSupervisor({
    store: engine.store,
    events: engine.events,
    workflows: () => engine.registry.names(),
    // The Python files' worker (always on) serves these: a worker command's lane does not wake for them.
    servedElsewhere: () => (loader.python.onProtocol ? loader.python.names() : []),
    localServer: engine.localServer,
    serverName: engine.localServer ?? defaultServerName(io.env),
    spawner,
    crashRetryMs: settings.crashRetryMs,
    log: write,
    reclaimMetrics: engine.metrics,
  });
}
