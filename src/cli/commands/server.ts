/**
 * `sluice server`: the HTTP API and web UI (bearer tokens required) and the scheduler
 * of a multi-server installation. Run any number of them on one Postgres database: exactly one is the
 * scheduler leader at a time (it fires cron and runs retention); the others stand
 * by and one of them takes over within a few ticks when the leader dies.
 */
import type { Command } from "commander";
import { checkStorageModel } from "../../engine/storage-model.js";
import { Project } from "../../loader/project.js";
import { isSluiceProject, notAProjectHint } from "../../loader/project-marker.js";
import { attachPipelines, type PipelineHost } from "../../pipeline/runtime/host.js";
import { type ProjectTriggers, startProjectTriggers } from "../../triggers/runtime/project.js";
import { storeReady } from "../../store/open.js";
import { type CommandContext, untilAborted } from "../command.js";
import { lakeSweepSetting } from "../lake-sweep-setting.js";
import { parseCount, parseDurationOption } from "../options.js";
import { retryStartup, startupTimeoutOption } from "../startup-retry.js";
import { DB_OPTION_HELP, openEngine, PUBLIC_URL_OPTION, publicUrlSetting, resolveProject } from "../project.js";
import { createLanes, laneOptions, parseLaneSettings, parseWorkersMode } from "../lanes.js";
import type { LaneSupervisor } from "../../lanes/supervisor.js";
import { type ExternalWorkers, startExternalWorkers } from "../external-workers.js";
import { type PythonWorkerHandle, startPythonWorker } from "../python-worker.js";
import { pythonHostMode } from "../../loader/python/project.js";
import { jsonMessages, LOG_FORMAT_OPTION, parseLogFormat } from "../log-format.js";
import { OTEL_OPTION, tracingFor, tracingLine } from "../otel.js";
import { followReleaseRetention } from "../release-retention.js";
import { releaseAssets, warnReleaseAssetChanges } from "../release-assets.js";
import { openReleaseMode, RELEASE_DRAIN_OPTION, RELEASE_OPTION, releasePollMs } from "../release-mode.js";
import type { ReleaseFollower } from "../../release/follower.js";
import { scheduleChangeLines } from "../schedule-changes.js";
import {
  type ConfigWatch,
  configTriggersReloader,
  configureScheduleRows,
  watchConfigTriggers,
} from "../config-triggers.js";

/** Registers `sluice server`. */
export function registerServer(program: Command, cx: CommandContext): void {
  const command = program
    .command("server")
    .description(
      "run a server: the scheduler (cron, retention) with leader election across servers, the API, and one worker process per worker group while work is runnable; SIGTERM stops it",
    )
    .option("--dir <dir>", "project folder")
    .option(...RELEASE_OPTION)
    .option(...RELEASE_DRAIN_OPTION)
    .option("--no-watch", "in folder mode: do not follow sluice.json's trigger rows when the file changes")
    .option("--db <url-or-file>", DB_OPTION_HELP)
    .option(
      "--scheduler-tick <duration>",
      "how often the scheduler looks for due cron ticks (and a standby for a dead leader)",
      "1s",
    )
    .option(
      "--name <name>",
      "this server's name, to which local: true workflows are scoped (default $SLUICE_SERVER_NAME, else the host name)",
    )
    .option(
      "--servers <n>",
      "how many servers this project is deployed to (default $SLUICE_SERVERS, else 1): checks the storage model at startup",
    )
    .option(...startupTimeoutOption("60s"))
    .option("--port <n>", "port of the HTTP API and web UI", "7777")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option(...PUBLIC_URL_OPTION)
    .option(...LOG_FORMAT_OPTION)
    .option(...OTEL_OPTION)
    .option(
      "--workers <mode>",
      "separate: start one worker process per worker group, and each sluice.json worker command, when work is runnable, gone when idle (scale to zero); none: run `sluice worker` yourself (worker commands then run all the time)",
      "separate",
    );
  laneOptions(command).action(async (opts) => {
    // Its output is a log: a reader gone must not end the work it runs (or its lane workers' supervision).
    cx.io.keepRunningWithoutOutput?.();
    // Under json every line this process prints is a JSON object, its errors and warnings included.
    const logFormat = parseLogFormat(opts.logFormat);
    if (logFormat === "json") cx.io.jsonLines?.();
    const workers = parseWorkersMode(opts.workers, ["separate", "none"] as const);
    const laneSettings = parseLaneSettings(opts);
    const tickMs = Math.max(10, parseDurationOption(opts.schedulerTick, "--scheduler-tick"));
    const releaseDrainMs = parseDurationOption(opts.releaseDrain, "--release-drain");
    const startupMs = parseDurationOption(opts.startupTimeout, "--startup-timeout");
    const servers = Math.max(1, parseCount(opts.servers ?? cx.io.env.SLUICE_SERVERS ?? "1", "--servers"));
    const lakeSweep = lakeSweepSetting(cx.io.env);
    const project = resolveProject(cx.io, opts.dir, opts.db);
    const out = (t: string) => cx.io.stdout(t);
    const write = logFormat === "json" ? jsonMessages(out) : out;
    const tracing = await tracingFor(opts.otel, cx.io.env, "sluice-server");
    if (tracing) write(tracingLine(tracing.target));
    // The HTTP layer is loaded here, not at the top: other commands (a lane worker) start faster without it.
    const { createApp, listen } = await import("../../http/serve.js");
    const http = await listen({
      host: opts.host,
      port: parseCount(opts.port, "--port"),
      env: cx.io.env,
      publicUrl: publicUrlSetting(cx.io, project, opts.publicUrl),
    });
    let lanes: LaneSupervisor | null = null;
    const engine = openEngine(project, {
      admit: (group, _store, workflow) => lanes?.admit(group, workflow),
      baseUrl: http.baseUrl,
      server: opts.name ?? cx.io.env.SLUICE_SERVER_NAME,
      releaseSchedules: Boolean(opts.release),
      scheduler: {
        tickMs,
        onLeadership: (leading) =>
          write(
            leading
              ? "scheduler: leader (this server fires cron and runs retention)\n"
              : "scheduler: standby (another server leads)\n",
          ),
        // Folder mode: the schedules this folder's code replaced are said (servers whose folders differ).
        ...(!opts.release && { onScheduleChanges: (changes) => write(scheduleChangeLines(changes)) }),
      },
    });
    let pipelines: PipelineHost | null = null;
    let follower: ReleaseFollower | null = null;
    let external: ExternalWorkers | null = null;
    let pythonWorker: PythonWorkerHandle | null = null;
    let triggers: ProjectTriggers | null = null;
    let configWatch: ConfigWatch | null = null;
    try {
      await retryStartup("opening the database", () => storeReady(engine.store), {
        timeoutMs: startupMs,
        write: (t) => cx.io.stderr(t),
        signal: cx.io.signal,
        command: "sluice server",
      });
      const release = opts.release ? await openReleaseMode(engine, project, cx.io.env, write, releaseDrainMs) : null;
      const loader = release?.loader ?? new Project(project.root, engine, cx.io.env);
      // Folder mode: the Python files run on a Python worker of the worker protocol (SLUICE_PYTHON_HOST=bridge: the
      // stdio host); a --release server keeps the stdio host (its code comes from the release, not the folder).
      if (!release && pythonHostMode(cx.io.env) === "protocol") loader.python.useProtocol();
      // A release process keeps the assets the release was deployed with (its sluice.json), else its folder's.
      const assets = release ? releaseAssets(release.project.root, project.config.assets) : project.config.assets;
      if (release)
        warnReleaseAssetChanges(release.follower, release.project.root, project.config.assets, assets, (t) =>
          cx.io.stderr(t),
        );
      pipelines = attachPipelines(loader, {
        assets,
        env: cx.io.env,
        lakeSweep: lakeSweep && { ...lakeSweep, log: write },
      });
      release?.follower.attachPipelines(pipelines);
      follower = release?.follower ?? null;
      const report = release ? await release.follower.load() : await loader.loadAll();
      // A release server keeps the retention the release was deployed with, followed across switches.
      if (release)
        followReleaseRetention(engine, release.follower, release.project.root, project.config.retention, write, (t) =>
          cx.io.stderr(t),
        );
      await pipelines.start();
      for (const e of report.errors) cx.io.stderr(`warning: ${e.error.message}\n`);
      // A folder server outside a project still serves external workers and stored code; it says why it loaded nothing.
      if (!release && !isSluiceProject(project.root)) cx.io.stderr(`note: ${notAProjectHint(project.root)}\n`);
      // sluice.json schedule rows: a folder's own; a release server's come with the release (published by the deploy).
      configureScheduleRows(
        engine,
        release ? Object.values(release.follower.current?.manifest.triggers ?? {}) : project.config.triggers,
        (t) => cx.io.stderr(t),
      );
      // Seed 002: several servers need shared state unless every workflow is local.
      checkStorageModel({
        servers,
        sharedStore: engine.localServer !== null,
        // Python files on the worker protocol are published, not registered (no local opt-out: global).
        workflows: [
          ...engine.registry.infos(),
          ...(loader.python.onProtocol ? loader.python.names().map((name) => ({ name })) : []),
        ],
        workerCommands: (project.config.workers ?? []).map((w, i) => `[${w.group ?? `worker${i + 1}`}] ${w.command}`),
      });
      await engine.start();
      await engine.recordPublicUrl(http.baseUrl);
      follower?.follow(releasePollMs(cx.io.env));
      // Each trigger is consumed by the server holding its leadership; a standby takes it over.
      triggers = await startProjectTriggers({
        engine,
        pipelines,
        // A release server consumes the current release's sluice.json rows (followed across switches).
        configTriggers: release
          ? () => Object.values(release.follower.current?.manifest.triggers ?? {})
          : project.config.triggers,
        root: project.root,
        env: cx.io.env,
        log: write,
      });
      // A folder-mode server follows sluice.json's trigger rows as sluice dev does (same reload).
      if (!release && opts.watch !== false) {
        configWatch = watchConfigTriggers(
          project.root,
          configTriggersReloader(project.root, engine, triggers, write, (t) => cx.io.stderr(t)),
        );
        await configWatch.ready;
      }
      if (workers === "separate") {
        lanes = createLanes({
          engine,
          loader,
          project: release?.project ?? project,
          settings: laneSettings,
          io: cx.io,
          write,
          logFormat,
        });
        await lanes.start();
        const supervisor = lanes;
        follower?.onSwitch(() => supervisor.refresh());
        write(
          `lanes: one worker process per worker group, started when work is runnable, exiting after ${laneSettings.idleMs} ms idle\n`,
        );
      }
      http.attach(
        createApp({
          engine,
          auth: { mode: "tokens" },
          projectRoot: project.root,
          lanes,
          workerCommands: () => external?.health() ?? [],
          traceUrl: cx.io.env.SLUICE_TRACE_URL,
          triggers,
          pipelines,
        }),
      );
      write(
        `API and UI: ${http.baseUrl}${http.baseUrl === http.server.url ? "" : ` (listening on ${http.server.url})`} (bearer tokens: sluice token create --name <you> --scope metrics|read|operate|worker|admin)\n`,
      );
      // A folder-mode server does not reload module files: no Python file now, none later (and no token).
      // --workers none runs no workflow code here, Python included: `sluice worker` runs the Python files too.
      if (workers === "separate" && loader.python.onProtocol && loader.python.names().length > 0)
        pythonWorker = await startPythonWorker(loader, http.server.url, engine.store, cx.io.env, write, 10_000);
      external = await startExternalWorkers({
        entries: project.config.workers ?? [],
        root: project.root,
        url: http.server.url,
        tokenStore: engine.store,
        engine,
        env: cx.io.env,
        write,
        lanes: lanes && { supervisor: lanes, idleMs: laneSettings.idleMs },
      });
      // Python files on the worker protocol are published, not registered: counted too.
      const names = [...engine.registry.names(), ...(loader.python.onProtocol ? loader.python.names() : [])];
      const scope = engine.localServer ? `, server name ${engine.localServer}` : "";
      write(
        `server ${process.pid} ready: ${names.length} workflow(s), database ${project.dbLabel}${scope}, scheduler tick ${tickMs} ms\n`,
      );
      await untilAborted(cx.io.signal);
      write("server stopping\n");
    } finally {
      // Worker commands drain first: they still need the API to checkpoint and finish.
      await external?.stop(10_000);
      await pythonWorker?.stop();
      await http.server.close();
      await follower?.stop();
      await configWatch?.close();
      await lanes?.stop(10_000);
      await triggers?.stop();
      await engine.stop({ drain: 0 });
      await pipelines?.stop();
      await tracing?.shutdown();
    }
    write("server stopped\n");
  });
}
