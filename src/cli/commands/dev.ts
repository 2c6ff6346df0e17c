import { relative, sep } from "node:path";
import chokidar from "chokidar";
import type { Command } from "commander";
import { Project } from "../../loader/project.js";
import { attachPipelines } from "../../pipeline/runtime/host.js";
import { type ProjectTriggers, startProjectTriggers } from "../../triggers/runtime/project.js";
import { configTriggersReloader, configureScheduleRows } from "../config-triggers.js";
import { discoverWorkflowFiles, isModuleFile, isRunnableFile } from "../../loader/discover.js";
import { isSluiceProject, NotAProjectError } from "../../loader/project-marker.js";
import { type CommandContext, untilAborted } from "../command.js";
import { lakeSweepSetting } from "../lake-sweep-setting.js";
import { localUser } from "../local-user.js";
import { parseCount, parseDurationOption } from "../options.js";
import { retryStartup, startupTimeoutOption } from "../startup-retry.js";
import { storeReady } from "../../store/open.js";
import { followRuns, logEcho } from "../printer.js";
import { describeAbandoned } from "../abandoned.js";
import { jsonMessages, LOG_FORMAT_OPTION, parseLogFormat } from "../log-format.js";
import { OTEL_OPTION, tracingFor, tracingLine } from "../otel.js";
import { DB_OPTION_HELP, openEngine, PUBLIC_URL_OPTION, publicUrlSetting, resolveProject } from "../project.js";
import { createLanes, laneOptions, parseLaneSettings, parseWorkersMode } from "../lanes.js";
import type { LaneSupervisor } from "../../lanes/supervisor.js";
import { type ExternalWorkers, startExternalWorkers } from "../external-workers.js";
import { startPythonWorker } from "../python-worker.js";
import { pythonHostMode } from "../../loader/python/project.js";

/** How long `sluice dev`'s stop waits for the runs its worker is running. */
const DRAIN_MS = 10_000;

/** `sluice dev [dir]`: scheduler and workers on the project's SQLite file, reloading changed workflow files. */
export function registerDev(program: Command, cx: CommandContext): void {
  const command = program
    .command("dev")
    .description(
      "run everything in one process on .sluice/sluice.db: discovers workflows, runs them, reloads on change",
    )
    .argument("[dir]", "project folder", ".")
    .option("--db <url-or-file>", DB_OPTION_HELP)
    .option("--concurrency <n>", "runs executed at once", "500")
    .option("--no-watch", "do not reload changed files")
    .option("--port <n>", "port of the API and web UI (default 7777, or the next free one)")
    .option("--host <host>", "address to listen on; anything but loopback requires API tokens", "127.0.0.1")
    .option("--auth", "require API tokens even on loopback (sluice token create)")
    .option(...startupTimeoutOption("0s"))
    .option(...PUBLIC_URL_OPTION)
    .option(...LOG_FORMAT_OPTION)
    .option(...OTEL_OPTION)
    .option(
      "--workers <mode>",
      "inline: run workflows in this process (sluice.json worker commands run all the time); separate: one worker process per worker group, and each worker command, started when work is runnable and gone when idle (as sluice server does)",
      "inline",
    );
  laneOptions(command).action(async (dir: string, opts) => {
    // Its output is a log: a reader gone must not end the work it runs (or its lane workers' supervision).
    cx.io.keepRunningWithoutOutput?.();
    // Under json every line this process prints is a JSON object, its errors and warnings included.
    const logFormat = parseLogFormat(opts.logFormat);
    if (logFormat === "json") cx.io.jsonLines?.();
    const workers = parseWorkersMode(opts.workers, ["inline", "separate"] as const);
    const laneSettings = parseLaneSettings(opts);
    const startupMs = parseDurationOption(opts.startupTimeout, "--startup-timeout");
    const lakeSweep = lakeSweepSetting(cx.io.env);
    const project = resolveProject(cx.io, dir, opts.db);
    // `sluice dev` runs the folder's code: refuse a folder that is not a project before starting anything.
    if (!isSluiceProject(project.root)) throw new NotAProjectError(project.root);
    const out = (t: string) => cx.io.stdout(t);
    const write = logFormat === "json" ? jsonMessages(out) : out;
    const publicUrl = publicUrlSetting(cx.io, project, opts.publicUrl);
    const tracing = await tracingFor(opts.otel, cx.io.env, "sluice-dev");
    if (tracing) write(tracingLine(tracing.target));
    // The HTTP layer is loaded here, not at the top: other commands (a lane worker) start faster without it.
    const { createApp, isLoopbackHost, listen } = await import("../../http/serve.js");
    const http = await listen({
      host: opts.host,
      port: opts.port === undefined ? 7777 : parseCount(opts.port, "--port"),
      fallbackPorts: opts.port === undefined ? 20 : 0,
      env: cx.io.env,
      publicUrl,
    });
    try {
      let lanes: LaneSupervisor | null = null;
      let external: ExternalWorkers | null = null;
      const engine = openEngine(project, {
        worker:
          workers === "inline" ? { concurrency: Math.max(1, parseCount(opts.concurrency, "--concurrency")) } : false,
        admit: (group, _store, workflow) => lanes?.admit(group, workflow),
        scheduler: true,
        echo: logEcho(out, logFormat),
        baseUrl: http.baseUrl,
      });
      const loader = new Project(project.root, engine, cx.io.env);
      // The Python files run on a Python worker of the worker protocol (SLUICE_PYTHON_HOST=bridge: the stdio host).
      if (pythonHostMode(cx.io.env) === "protocol") loader.python.useProtocol();
      const pipelines = attachPipelines(loader, {
        assets: project.config.assets,
        env: cx.io.env,
        watch: opts.watch !== false,
        log: write,
        lakeSweep,
      });
      const unfollow = followRuns(engine, out, logFormat);
      await retryStartup("opening the database", () => storeReady(engine.store), {
        timeoutMs: startupMs,
        write: (t) => cx.io.stderr(t),
        signal: cx.io.signal,
        command: "sluice dev",
      });
      await engine.start();
      await engine.recordPublicUrl(http.baseUrl);
      const report = await loader.loadAll();
      for (const m of report.loaded)
        write(
          `loaded ${m.file}: ${m.workflows.map((w) => w.name).join(", ") || "(no workflows)"}  [code ${m.hash.slice(0, 8)}]\n`,
        );
      for (const e of report.errors) cx.io.stderr(`error: ${e.error.message}\n`);
      for (const name of await loader.forgetDeletedFiles()) write(`removed ${name}: its file is gone\n`);
      configureScheduleRows(engine, project.config.triggers, (t) => cx.io.stderr(t));
      await engine.publish();
      await pipelines.start();
      // a project of pipeline or plain scripts only (DuckDB SQL, Bash) has no modules, and needs no hint; nor does
      // one whose workflows come from the worker commands of sluice.json (Go, Python workers): they register theirs
      const workerCommands = (project.config.workers ?? []).length > 0;
      const nothing = report.loaded.length === 0 && report.errors.length === 0;
      const plain = pipelines.plainScripts.scripts().length + pipelines.plainScripts.errors().length;
      if (nothing && !workerCommands && pipelines.catalog().folders().length === 0 && plain === 0) {
        write(`no workflow modules found under ${project.root}: add one in workflows/, e.g. workflows/hello.ts\n`);
      }
      // Each kind's client loads only when the project has a trigger of that kind.
      const triggers = await startProjectTriggers({
        engine,
        pipelines,
        configTriggers: project.config.triggers,
        root: project.root,
        env: cx.io.env,
        log: write,
      });
      if (workers === "separate") {
        lanes = createLanes({ engine, loader, project, settings: laneSettings, io: cx.io, write, logFormat });
        await lanes.start();
        write(
          `lanes: one worker process per worker group, started when work is runnable, exiting after ${laneSettings.idleMs} ms idle\n`,
        );
      }
      const watcher =
        opts.watch === false
          ? null
          : watchProject(
              project.root,
              loader,
              write,
              (t) => cx.io.stderr(t),
              () => lanes?.refresh(),
              triggers,
            );
      // Watching before the UI line: a change made as soon as it shows is seen.
      if (watcher) await new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
      write(
        `sluice dev: ${engine.registry.names().length + (loader.python.onProtocol ? loader.python.names().length : 0)} workflow(s), database ${project.dbLabel.startsWith("postgres") ? project.dbLabel : relative(cx.io.cwd, project.dbPath) || project.dbPath}. Ctrl-C to stop.\n`,
      );
      const tokens = opts.auth || !isLoopbackHost(opts.host);
      http.attach(
        createApp({
          engine,
          auth: tokens ? { mode: "tokens" } : { mode: "off", user: localUser(cx.io.env) },
          projectRoot: project.root,
          lanes,
          workerCommands: () => external?.health() ?? [],
          traceUrl: cx.io.env.SLUICE_TRACE_URL,
          triggers,
          pipelines,
        }),
      );
      const listening = http.baseUrl === http.server.url ? "" : `, listening on ${http.server.url}`;
      write(
        `UI: ${http.baseUrl}  (API ${http.baseUrl}/api${tokens ? "; send a token from sluice token create" : ", no login on loopback"}${listening})\n`,
      );
      external = await startExternalWorkers({
        entries: project.config.workers ?? [],
        root: project.root,
        url: http.server.url,
        tokenStore: tokens ? engine.store : null,
        engine,
        env: cx.io.env,
        write,
        lanes: lanes && { supervisor: lanes, idleMs: laneSettings.idleMs },
      });
      const pythonWorker = loader.python.onProtocol
        ? await startPythonWorker(loader, http.server.url, tokens ? engine.store : null, cx.io.env, write, DRAIN_MS)
        : null;
      for (const item of project.config.dev?.enqueue ?? []) {
        try {
          // Started by the person who ran `sluice dev`, named as its UI and `sluice enqueue` name them.
          const handle = await engine.enqueueRun(item.workflow, item.payload ?? {}, {
            ...(item.id && { id: item.id }),
            createdBy: localUser(cx.io.env),
          });
          write(`enqueued ${item.workflow} ${handle.id}${handle.deduplicated ? " (already there)" : ""}\n`);
        } catch (err) {
          cx.io.stderr(`error: could not enqueue ${item.workflow} from sluice.json: ${(err as Error).message}\n`);
        }
      }
      await untilAborted(cx.io.signal);
      write("stopping: waiting for running claims…\n");
      // Worker commands drain first: they still need the API to checkpoint and finish.
      await external.stop(10_000);
      await pythonWorker?.stop();
      await http.server.close();
      await watcher?.close();
      await lanes?.stop(10_000);
      await triggers.stop();
      // The engine drains before the pipeline host stops: a draining step still needs the
      // host's asset storage and script runners. Runs still running after the drain are
      // abandoned as `sluice worker` abandons them: their leases are released for the next worker.
      const abandoned = await engine.worker?.stop(DRAIN_MS);
      if (abandoned?.ids.length)
        write(describeAbandoned(abandoned, `${DRAIN_MS / 1000}s`, engine.worker!.options.leaseMs));
      await engine.stop({ drain: 0 });
      await pipelines.stop();
      unfollow();
    } finally {
      await http.server.close();
      await tracing?.shutdown();
    }
    write("stopped\n");
  });
}

/** Reloads workflow modules when they change; runs already started keep their code version. */
function watchProject(
  root: string,
  loader: Project,
  write: (t: string) => void,
  warn: (t: string) => void,
  reloaded: () => Promise<void> | undefined,
  triggers: ProjectTriggers,
) {
  const watcher = chokidar.watch(root, {
    ignoreInitial: true,
    ignored: (path: string) => {
      const rel = relative(root, path);
      return rel.split(sep).some((part) => part.startsWith(".") || part === "node_modules");
    },
    awaitWriteFinish: { stabilityThreshold: 50, pollInterval: 10 },
  });
  const reload = async (path: string) => {
    const file = relative(root, path).split(sep).join("/");
    if (file === "sluice.json") return reloadTriggers();
    if (file.endsWith(".py")) return reloadPython(file);
    if (!isModuleFile(file)) return;
    try {
      if (isRunnableFile(root, file)) {
        const m = await loader.loadFile(file);
        write(`reloaded ${file}: ${m.workflows.map((w) => w.name).join(", ")}  [code ${m.hash.slice(0, 8)}]\n`);
      } else {
        // A helper changed: reload every workflow module (each bundles its imports).
        for (const wf of discoverWorkflowFiles(root)) await loader.loadFile(wf);
        write(`reloaded workflows after ${file} changed\n`);
      }
      // Separate workers: the current ones drain and new work starts on the new code.
      await reloaded();
    } catch (err) {
      warn(`error: ${(err as Error).message}\n`);
    }
  };
  // sluice.json: its trigger rows and retention are followed (other settings need a restart).
  const reloadTriggers = configTriggersReloader(root, loader.engine, triggers, write, warn);
  // Python files are not bundled: reinspect them all (one Python process).
  const reloadPython = async (file: string) => {
    try {
      const report = await loader.loadPython();
      for (const e of report.errors) warn(`error: ${e.error.message}\n`);
      write(`reloaded Python workflows after ${file} changed\n`);
      await reloaded();
    } catch (err) {
      warn(`error: ${(err as Error).message}\n`);
    }
  };
  // reload catches and prints its own errors.
  watcher.on("add", (path: string) => void reload(path)).on("change", (path: string) => void reload(path));
  watcher.on("unlink", (path: string) => {
    const file = relative(root, path).split(sep).join("/");
    if (file === "sluice.json") return void reloadTriggers();
    if (file.endsWith(".py")) return void reloadPython(file);
    void loader.removeFile(file).then(async (names) => {
      if (names.length === 0) return;
      write(`removed ${file}: ${names.join(", ")}\n`);
      await reloaded();
    });
  });
  return watcher;
}
