import type { Command } from "commander";
import { pythonHostMode } from "../../loader/python/project.js";
import { pythonRunsBusy, servePythonFromWorker } from "../python-worker.js";
import { type LoadReport, Project } from "../../loader/project.js";
import { ModuleImportError } from "../../loader/import-bundle.js";
import { isSluiceProject, notAProjectHint } from "../../loader/project-marker.js";
import { type BuildEntry, readBuildManifest } from "../../lanes/build-manifest.js";
import { clearCrashOnClaim } from "../../lanes/claim-recovery.js";
import { WorkerStartupError } from "../../lanes/errors.js";
import { linkToSupervisor } from "../../lanes/worker-link.js";
import { attachPipelines } from "../../pipeline/runtime/host.js";
import { storeReady } from "../../store/open.js";
import { type CommandContext, untilAborted } from "../command.js";
import { parseCount, parseDurationOption } from "../options.js";
import { retryableAtStartup, retryStartup, startupTimeoutOption } from "../startup-retry.js";
import { followRuns, logEcho } from "../printer.js";
import { describeAbandoned } from "../abandoned.js";
import { startWorkerMetrics } from "../worker-metrics.js";
import { jsonMessages, LOG_FORMAT_OPTION, parseLogFormat } from "../log-format.js";
import { OTEL_OPTION, tracingFor, tracingLine } from "../otel.js";
import { DB_OPTION_HELP, openEngine, publicUrlSetting, resolveProject } from "../project.js";
import { scheduleRowsOf } from "../../triggers/schedule-rows.js";
import { releaseAssets, warnReleaseAssetChanges } from "../release-assets.js";
import { openReleaseMode, RELEASE_DRAIN_OPTION, RELEASE_OPTION, releasePollMs } from "../release-mode.js";

/** `sluice worker`: claim and execute runs until stopped (or idle, with --exit-when-idle). */
export function registerWorker(program: Command, cx: CommandContext): void {
  program
    .command("worker")
    .description("run a worker: claims and executes runs; SIGTERM drains gracefully")
    .option("--dir <dir>", "project folder")
    .option("--db <url-or-file>", DB_OPTION_HELP)
    .option("--group <groups>", "only claim these worker groups (comma-separated)")
    .option("--concurrency <n>", "runs executed at once", "500")
    .option("--exit-when-idle", "exit once there is no runnable work (scale to zero)")
    .option("--idle <duration>", "with --exit-when-idle: how long to stay idle before exiting", "1s")
    .option(...startupTimeoutOption("60s"))
    .option("--lease <duration>", "lease length; heartbeats every third of it", "30s")
    .option("--drain-timeout <duration>", "on SIGTERM, how long to wait for running claims", "30s")
    .option(
      "--inline-sleep <duration>",
      "sleeps up to this long run inline, longer ones park the run; $SLUICE_INLINE_SLEEP sets the default",
      cx.io.env.SLUICE_INLINE_SLEEP ?? "30s",
    )
    .option("--quiet", "do not print run lifecycle and logs")
    .option("--metrics-port <n>", "serve this worker's own metrics on GET /metrics at this port (0: any free port)")
    .option(
      "--metrics-host <host>",
      "address of --metrics-port (not loopback: a metrics-scope token is required)",
      "127.0.0.1",
    )
    .option(...LOG_FORMAT_OPTION)
    .option(...OTEL_OPTION)
    .option(...RELEASE_OPTION)
    .option(...RELEASE_DRAIN_OPTION)
    .option(
      "--from-build <file>",
      "load the code versions listed in this file instead of bundling the project (written by a server for its lane workers)",
    )
    .action(async (opts) => {
      // Its output is a log: a reader gone (a lane worker's dead server) must not end the work it runs.
      cx.io.keepRunningWithoutOutput?.();
      // Under json every line this process prints is a JSON object, its errors and warnings included.
      const logFormat = parseLogFormat(opts.logFormat);
      if (logFormat === "json") cx.io.jsonLines?.();
      const concurrency = parseCount(opts.concurrency, "--concurrency");
      const metricsPort = opts.metricsPort === undefined ? null : parseCount(opts.metricsPort, "--metrics-port");
      const idleMs = parseDurationOption(opts.idle, "--idle");
      const startupMs = parseDurationOption(opts.startupTimeout, "--startup-timeout");
      const leaseMs = parseDurationOption(opts.lease, "--lease");
      const drainMs = parseDurationOption(opts.drainTimeout, "--drain-timeout");
      const inlineSleepMs = parseDurationOption(opts.inlineSleep, "--inline-sleep");
      const releaseDrainMs = parseDurationOption(opts.releaseDrain, "--release-drain");
      const queues = opts.group
        ? String(opts.group)
            .split(",")
            .map((g: string) => g.trim())
            .filter(Boolean)
        : undefined;
      const project = resolveProject(cx.io, opts.dir, opts.db);
      const out = (t: string) => cx.io.stdout(t);
      const write = logFormat === "json" ? jsonMessages(out) : out;
      // Links point at the configured public URL, else at the one a server recorded in the database.
      const publicUrl = publicUrlSetting(cx.io, project);
      const tracing = await tracingFor(opts.otel, cx.io.env, "sluice-worker");
      if (tracing) write(tracingLine(tracing.target));
      const engine = openEngine(project, {
        ...(publicUrl && { baseUrl: publicUrl }),
        worker: { concurrency: Math.max(1, concurrency), queues, leaseMs },
        echo: opts.quiet ? undefined : logEcho(out, logFormat),
        inlineSleepMs,
      });
      const retrying = { timeoutMs: startupMs, write: (t: string) => cx.io.stderr(t), signal: cx.io.signal };
      await retryStartup("opening the database", () => storeReady(engine.store), retrying);
      const build = opts.fromBuild ? readBuildManifest(String(opts.fromBuild)) : null;
      const release = opts.release ? await openReleaseMode(engine, project, cx.io.env, write, releaseDrainMs) : null;
      const loader = release?.loader ?? new Project(project.root, engine, cx.io.env);
      // By default (not SLUICE_PYTHON_HOST=bridge, not --release) this worker's Python files run on a Python worker of the
      // worker protocol, served by a loopback API of this process (a lane worker leaves them to its server's).
      const pythonOnProtocol = !build && !release && pythonHostMode(cx.io.env) === "protocol";
      if (pythonOnProtocol) loader.python.useProtocol();
      // A release process keeps the assets the release was deployed with (its sluice.json), else its folder's.
      const assets = release ? releaseAssets(release.project.root, project.config.assets) : project.config.assets;
      if (release)
        warnReleaseAssetChanges(release.follower, release.project.root, project.config.assets, assets, (t) =>
          cx.io.stderr(t),
        );
      const pipelines = attachPipelines(loader, {
        assets,
        env: cx.io.env,
        freshness: false,
        lakeSweep: false,
      });
      release?.follower.attachPipelines(pipelines);
      // A module whose load failed because the database did (storing its bundle) is retried, not skipped.
      const report = await retryStartup(
        "loading the project",
        async () => {
          const loaded = release
            ? await release.follower.load()
            : build
              ? await loadBuilt(loader, build)
              : await loader.loadAll();
          const storage = loaded.errors.find((e) => retryableAtStartup(e.error));
          if (storage) throw storage.error;
          return loaded;
        },
        retrying,
      );
      // When the server runs them on the worker protocol (its lanes get its SLUICE_PYTHON_HOST), its Python worker does.
      if (build && pythonHostMode(cx.io.env) !== "protocol") {
        // Python files are not bundled: a lane worker loads them as they are.
        const py = await loader.loadPython();
        report.loaded.push(...py.loaded);
        report.errors.push(...py.errors);
      }
      // A lane worker runs the versions its server loaded: one that cannot is a startup crash.
      if (build && report.errors.length)
        throw new WorkerStartupError(
          report.errors.map((e) =>
            e.error instanceof ModuleImportError ? e.error.message : `${e.file}: ${e.error.message}`,
          ),
        );
      await pipelines.start();
      for (const e of report.errors) cx.io.stderr(`warning: ${e.error.message}\n`);
      // A folder worker outside a project still runs stored code versions; it says why it loaded nothing.
      if (!release && !build && !isSluiceProject(project.root))
        cx.io.stderr(`note: ${notAProjectHint(project.root)}\n`);
      const unfollow = opts.quiet ? () => {} : followRuns(engine, out, logFormat);
      const unclear = clearCrashOnClaim(engine.store, engine.events, engine.localServer, write);
      const link = linkToSupervisor(engine.events, cx.io.env);
      const metrics = await startWorkerMetrics({ engine, link, port: metricsPort, host: opts.metricsHost });
      if (metrics.url) write(`metrics: ${metrics.url}\n`);
      // sluice.json schedule rows: the workflow rows this worker publishes carry the same cron as its server's.
      engine.setConfiguredSchedules(
        scheduleRowsOf(
          release ? Object.values(release.follower.current?.manifest.triggers ?? {}) : project.config.triggers,
        ),
      );
      // A worker that cannot start must not be kept alive by its metrics server.
      await retryStartup("publishing the workflows", () => engine.start(), retrying).catch(async (err: unknown) => {
        await metrics.stop();
        throw err;
      });
      release?.follower.follow(releasePollMs(cx.io.env));
      // Only for Python files that loaded: a worker without them opens no API of its own.
      const python =
        pythonOnProtocol && loader.python.names().length > 0
          ? await servePythonFromWorker(engine, loader, cx.io.env, write, drainMs)
          : null;
      // The Python files its own Python worker claims are served too: listed with the rest.
      const names = [...engine.registry.names(), ...(python ? loader.python.names() : [])];
      write(
        `worker ${engine.worker!.options.workerId} ready: ${names.length} workflow(s) [${names.join(", ")}]${queues ? `, groups ${queues.join(", ")}` : ""}\n`,
      );
      link?.ready();
      const busy = python ? () => pythonRunsBusy(engine, loader) : async () => false;
      const idle = opts.exitWhenIdle
        ? waitForIdle(engine.worker!, idleMs, cx.io.signal, busy)
        : new Promise<void>(() => {});
      const orphaned = link ? link.parentGone.then(() => "orphaned" as const) : new Promise<never>(() => {});
      const why = await Promise.race([
        untilAborted(cx.io.signal).then(() => "signal" as const),
        idle.then(() => "idle" as const),
        orphaned,
      ]);
      write(why === "idle" ? "idle: exiting\n" : why === "orphaned" ? "supervisor gone: draining…\n" : "draining…\n");
      await release?.follower.stop();
      // The Python worker drains first: it still needs the API to checkpoint and finish.
      await python?.close();
      const worker = engine.worker!;
      // Claims still running after the drain timeout are abandoned: their leases end now, not when they expire.
      const abandoned = await worker.stop(drainMs);
      if (abandoned.ids.length) write(describeAbandoned(abandoned, opts.drainTimeout, leaseMs));
      await engine.stop({ drain: 0 });
      await metrics.stop();
      await pipelines.stop();
      unfollow();
      unclear();
      link?.close();
      await tracing?.shutdown();
      const left = abandoned.ids.length;
      write(`worker stopped after ${worker.claims} claim(s)${left ? `, ${left} abandoned` : ""}\n`);
      // Work left unfinished is a failed shutdown (raise --drain-timeout, or give the process longer to stop).
      if (left) cx.setExitCode(1);
    });
}

/** Loads the versions a build manifest lists; each failure is reported like a broken file. */
async function loadBuilt(loader: Project, build: BuildEntry[]): Promise<LoadReport> {
  const report: LoadReport = { loaded: [], errors: [] };
  for (const m of build) {
    try {
      report.loaded.push(await loader.loadBuilt(m.file, m.hash));
    } catch (error) {
      report.errors.push({ file: m.file, error: error as Error });
    }
  }
  return report;
}

/** Resolves once the worker has been idle for `idleMs` and `busy()` (other work of this process) says no. */
function waitForIdle(
  worker: { idleFor(): number | null },
  idleMs: number,
  signal: AbortSignal,
  busy: () => Promise<boolean>,
): Promise<void> {
  return new Promise((resolve) => {
    let checking = false;
    const timer = setInterval(
      () => {
        const idle = worker.idleFor();
        if (signal.aborted) {
          clearInterval(timer);
          return resolve();
        }
        if (checking || idle === null || idle < idleMs) return;
        checking = true;
        busy()
          .then((b) => {
            if (!b) {
              clearInterval(timer);
              resolve();
            }
          })
          .catch(() => {})
          .finally(() => (checking = false));
      },
      Math.min(100, idleMs),
    );
  });
}
