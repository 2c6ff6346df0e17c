import type { Command } from "commander";
import { decodeValue } from "../../core/serde.js";
import { admitFromStore } from "../../lanes/crash-record.js";
import { Project } from "../../loader/project.js";
import { json, type CommandContext } from "../command.js";
import { runJson } from "../json.js";
import { parseCount, parseDurationOption, parseJsonArg, parseRunAtOption } from "../options.js";
import { DB_OPTION, DIR_OPTION, withEngine } from "../project.js";

/** `sluice enqueue <workflow> [payload]`: create a run; `--wait` prints its result. */
export function registerEnqueue(program: Command, cx: CommandContext): void {
  program
    .command("enqueue")
    .description("enqueue a run of a workflow (payload is JSON)")
    .argument("<workflow>", "workflow name (or path, for workflows as code)")
    .argument("[payload]", "JSON payload", undefined)
    .option("--id <id>", "run id: the same id with the same payload returns the existing run")
    .option("--run-at <time>", "do not start before: ISO time, epoch ms, or a delay like 10m")
    .option("--retries <n>", "retries after the first attempt (overrides the workflow's)")
    .option("--as <user>", "who starts the run (default: $USER); used by approvals with selfApproval: false")
    .option("--wait", "wait for the run to finish and print its result")
    .option("--timeout <duration>", "with --wait: give up waiting after this long (the run keeps going)")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (workflow: string, payloadText: string | undefined, opts) => {
      const payload = parseJsonArg(payloadText, "payload", {});
      const runAt = opts.runAt === undefined ? undefined : parseRunAtOption(opts.runAt);
      const retries = opts.retries === undefined ? undefined : parseCount(opts.retries, "--retries");
      const timeoutMs = opts.timeout === undefined ? undefined : parseDurationOption(opts.timeout, "--timeout");
      await withEngine(cx.io, opts, async (engine, project) => {
        await engine.start();
        if (!(await engine.store.listWorkflows()).some((w) => w.name === workflow)) {
          // Not published by a running `sluice dev`/worker yet: load the project's modules to find it.
          const report = await new Project(project.root, engine).loadAll();
          for (const e of report.errors) cx.io.stderr(`warning: ${e.error.message}\n`);
        }
        const handle = await engine.enqueueRun(workflow, payload, { id: opts.id, runAt, retries, createdBy: opts.as ?? cx.io.env.USER ?? "cli" });
        if (!opts.wait) {
          if (opts.json) json(cx, { id: handle.id, deduplicated: handle.deduplicated, workflow });
          else cx.io.stdout(`${handle.id}${handle.deduplicated ? "  (existing run: same id and payload)" : ""}\n`);
          return;
        }
        if (!opts.json) cx.io.stderr(`enqueued ${handle.id}; waiting for a worker (sluice dev or sluice worker) to finish it…\n`);
        const run = await engine.waitForRun(handle.id, timeoutMs);
        if (opts.json) json(cx, runJson(run));
        else if (run.status === "succeeded") cx.io.stdout(`${JSON.stringify(decodeValue(run.result) ?? null, null, 2)}\n`);
        else cx.io.stderr(`run ${run.id} ${run.status}: ${run.error?.message ?? ""}\n`);
        if (run.status !== "succeeded") cx.setExitCode(1);
      }, { admit: admitFromStore });
    });
}
