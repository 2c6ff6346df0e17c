import type { Command } from "commander";
import { traceCarrierFromEnv } from "../../core/trace-context.js";
import { safe } from "../format.js";
import { admitFromStore } from "../../lanes/crash-record.js";
import { existsSync } from "node:fs";
import { Project } from "../../loader/project.js";
import { onceEachClash } from "../../loader/sibling-clash.js";
import { PipelineCatalog } from "../../pipeline/runtime/catalog.js";
import { isSluiceProject, NotAProjectError } from "../../loader/project-marker.js";
import { isPostgresUrl } from "../../store/open.js";
import { InvalidInputError } from "../../sdk/errors.js";
import { json, type CommandContext } from "../command.js";
import { readJsonInput } from "../json-input.js";
import { localUser } from "../local-user.js";
import { commandPlainScripts } from "../plain-scripts.js";
import { parseCount, parseDurationOption, parseRunAtOption } from "../options.js";
import { DB_OPTION, DIR_OPTION, resolveProject, withEngine } from "../project.js";
import { EXIT_WAIT_TIMEOUT, waitAndReport } from "../wait.js";

const WAIT_HELP = `
With --wait the command blocks until the run finishes and prints its result (the run as JSON
with --json). After 10 s without a worker claiming the run it says so on stderr and keeps
waiting ($SLUICE_WAIT_HINT_AFTER, e.g. 30s, changes the delay). Exit codes: 0 succeeded, 1 failed or cancelled (or bad input), ${EXIT_WAIT_TIMEOUT} --timeout passed
first, 130 interrupted; in the last two cases the run keeps going.

A payload too large for the command line (the OS limit is about 128 KiB) can come from a file:
--payload-file payload.json, or standard input: --payload-file -`;

/** `sluice enqueue <workflow> [payload]`: create a run; `--wait` blocks until it finishes and prints its result. */
export function registerEnqueue(program: Command, cx: CommandContext): void {
  program
    .command("enqueue")
    .description("enqueue a run of a workflow (payload is JSON)")
    .argument("<workflow>", "workflow name (or path, for workflows as code)")
    .argument("[payload]", "JSON payload", undefined)
    .option("--payload-file <file>", "read the JSON payload from a file (- for standard input)")
    .option("--id <id>", "run id: the same id with the same payload returns the existing run")
    .option("--run-at <time>", "do not start before: ISO time, epoch ms, or a delay like 10m")
    .option("--retries <n>", "retries after the first attempt (overrides the workflow's)")
    .option(
      "--as <user>",
      "who starts the run (default: the local user: $USER, else $LOGNAME, else the OS account); used by approvals with selfApproval: false",
    )
    .option("--wait", "wait for the run to finish and print its result (exit 1 if it failed or was cancelled)")
    .option(
      "--timeout <duration>",
      `with --wait: give up waiting after this long, exit ${EXIT_WAIT_TIMEOUT} (the run keeps going)`,
    )
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .addHelpText("after", WAIT_HELP)
    .action(async (workflow: string, payloadText: string | undefined, opts) => {
      const payload = await readJsonInput(cx.io, {
        inline: payloadText,
        file: opts.payloadFile,
        inlineName: "payload",
        fileFlag: "--payload-file",
        fallback: {},
      });
      const runAt = opts.runAt === undefined ? undefined : parseRunAtOption(opts.runAt);
      const retries = opts.retries === undefined ? undefined : parseCount(opts.retries, "--retries");
      const timeoutMs = opts.timeout === undefined ? undefined : parseDurationOption(opts.timeout, "--timeout");
      if (timeoutMs !== undefined && !opts.wait)
        throw new InvalidInputError("--timeout only applies with --wait: add --wait, or drop --timeout", {
          code: "INVALID_OPTION",
        });
      if (timeoutMs === 0)
        throw new InvalidInputError(
          `--timeout "${opts.timeout}" gives the run no time: give it a duration longer than 0 (e.g. 30s), or drop --timeout to wait as long as it takes`,
          { code: "INVALID_DURATION" },
        );
      // Outside a project, with no database there either: say so before creating one.
      const target = resolveProject(cx.io, opts.dir, opts.db);
      if (!isSluiceProject(target.root) && !isPostgresUrl(target.dbPath) && !existsSync(target.dbPath))
        throw new NotAProjectError(target.root, `there is no database at ${target.dbLabel} to enqueue ${workflow} in`);
      await withEngine(
        cx.io,
        opts,
        async (engine, project) => {
          await engine.start();
          if (!(await engine.store.listWorkflows()).some((w) => w.name === workflow)) {
            if (!isSluiceProject(project.root))
              throw new NotAProjectError(project.root, `workflow ${workflow} is not published in ${project.dbLabel}`);
            // Not published by a running `sluice dev`/worker yet: load the project's modules (and plain
            // SQL and Bash scripts) to find it.
            const report = await new Project(project.root, engine, cx.io.env).loadAll();
            const plain = commandPlainScripts(
              engine,
              project.root,
              PipelineCatalog.scan(project.root),
              project.config.assets,
              cx.io.env,
            );
            await plain.scripts.sync();
            for (const e of onceEachClash([...report.errors, ...plain.scripts.errors()]))
              cx.io.stderr(`warning: ${e.error.message}\n`);
          }
          const handle = await engine.enqueueRun(workflow, payload, {
            id: opts.id,
            runAt,
            retries,
            createdBy: opts.as ?? localUser(cx.io.env),
            // Started inside a trace (TRACEPARENT: a CI job, a Sluice script): the run continues it.
            trace: traceCarrierFromEnv(cx.io.env) ?? undefined,
          });
          if (!opts.wait) {
            if (opts.json) json(cx, { id: handle.id, deduplicated: handle.deduplicated, workflow });
            else
              cx.io.stdout(`${safe(handle.id)}${handle.deduplicated ? "  (existing run: same id and payload)" : ""}\n`);
            return;
          }
          if (!opts.json) cx.io.stderr(`enqueued ${safe(handle.id)}; waiting for it to finish…\n`);
          await waitAndReport(cx, engine, handle.id, { timeoutMs, json: Boolean(opts.json), dbLabel: project.dbLabel });
        },
        { admit: admitFromStore },
      );
    });
}
