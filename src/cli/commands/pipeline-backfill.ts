/**
 * `sluice pipeline backfill <folder> --from-partition A --to-partition B`: one plan run
 * per partition of the range (oldest first, `--concurrency` at a time), each running the
 * folder's partitioned steps (or a `--from`/`--to` slice) with that explicit partition, so
 * the whole chain reprocesses exactly it. A progress bar counts finished partitions; a
 * failed partition does not stop the others, but makes the command exit 1.
 */
import type { Command } from "commander";
import type { Engine } from "../../engine/engine.js";
import { enumeratePartitions } from "../../pipeline/partition-range.js";
import { PipelineCatalog, type PipelineFolder } from "../../pipeline/runtime/catalog.js";
import { PipelineInvalidError, PipelineRuntimeError } from "../../pipeline/runtime/errors.js";
import { PLAN_WORKFLOW, type PlanPayload } from "../../pipeline/runtime/plan-workflow.js";
import { formatDiagnostic } from "../../pipeline/diagnostics.js";
import { describeScheme } from "../../pipeline/lineage-schemes.js";
import { json, type CommandContext } from "../command.js";
import { formatMillis } from "../../core/duration.js";
import { parseCount } from "../options.js";
import { DB_OPTION, DIR_OPTION, resolveProject } from "../project.js";
import { withPipelineRuntime } from "./pipeline-local.js";
import { folderArg, pipelineFolder, planSteps } from "./pipeline-shared.js";

/** A text progress bar: `[#####.....] 2/4`. */
export function progressBar(done: number, total: number, width = 20): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total}`;
}

function partitionedSteps(folder: PipelineFolder, steps: readonly string[]): { run: string[]; skipped: string[] } {
  const run: string[] = [];
  const skipped: string[] = [];
  for (const s of steps) (folder.schemes.has(`script:${s}`) ? run : skipped).push(s);
  return { run, skipped };
}

interface PartitionOutcome {
  partition: string;
  run: string;
  status: string;
  error: string | null;
  ms: number;
}

async function runPartition(
  engine: Engine,
  folder: string,
  steps: string[],
  partition: string,
): Promise<PartitionOutcome> {
  const t0 = Date.now();
  const payload: PlanPayload = { folder, steps, partition };
  const handle = await engine.enqueueRun(PLAN_WORKFLOW, payload);
  const run = await engine.waitForRun(handle.id);
  return { partition, run: run.id, status: run.status, error: run.error?.message ?? null, ms: Date.now() - t0 };
}

/** Registers `sluice pipeline backfill`. */
export function registerPipelineBackfill(pipeline: Command, cx: CommandContext): void {
  pipeline
    .command("backfill")
    .description("re-run a pipeline's partitioned steps for every partition of a range, with a progress bar")
    .argument("<folder>", "pipeline folder, e.g. f/lake")
    .requiredOption("--from-partition <value>", "first partition (in the scheme's format, or an ISO date)")
    .requiredOption("--to-partition <value>", "last partition, inclusive")
    .option("--to <nodes>", "only the steps up to these nodes (script names, paths or asset URIs)")
    .option("--from <script>", "start script of the slice")
    .option("--concurrency <n>", "partitions run at once", "1")
    .option("--dry-run", "print the partitions and steps without running them")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (folderText: string, opts) => {
      const concurrency = Math.max(1, parseCount(opts.concurrency, "--concurrency"));
      const project = resolveProject(cx.io, opts.dir, opts.db);
      const folder = pipelineFolder(PipelineCatalog.scan(project.root), folderArg(project.root, cx.io.cwd, folderText));
      if (!folder.ok)
        throw new PipelineInvalidError(
          folder.folder,
          folder.diagnostics.filter((d) => d.severity === "error").map(formatDiagnostic),
        );
      const plan = planSteps(folder, { to: opts.to, from: opts.from });
      const { run: steps, skipped } = partitionedSteps(folder, plan.steps);
      const scheme = steps.map((s) => folder.schemes.get(`script:${s}`)!.spec)[0];
      if (!scheme)
        throw new PipelineRuntimeError(
          "PIPELINE_INVALID",
          `nothing to backfill in ${folder.folder}: none of its planned steps is partitioned (add \`// partitioned daily\` or another scheme)`,
        );
      const partitions = enumeratePartitions(scheme, opts.fromPartition, opts.toPartition);
      const summary = { folder: folder.folder, scheme: describeScheme(scheme), partitions, steps, skipped };
      if (opts.dryRun) {
        if (opts.json) json(cx, { ...summary, dryRun: true });
        else {
          cx.io.stdout(
            `backfill of ${folder.folder}: ${partitions.length} ${describeScheme(scheme)} partition(s) × ${steps.length} step(s)\n`,
          );
          cx.io.stdout(`  partitions: ${partitions.join(", ")}\n  steps: ${steps.join(" → ")}\n`);
          if (skipped.length) cx.io.stdout(`  not partitioned, left out: ${skipped.join(", ")}\n`);
          cx.io.stdout("(dry run: nothing was started)\n");
        }
        return;
      }
      await withPipelineRuntime(cx.io, opts, steps, async (_host, engine) => {
        const outcomes: PartitionOutcome[] = [];
        const queue = [...partitions];
        if (!opts.json)
          cx.io.stdout(
            `backfill of ${folder.folder}: ${partitions.length} partition(s) × ${steps.length} step(s)\n${progressBar(0, partitions.length)}\n`,
          );
        const lane = async () => {
          for (let p = queue.shift(); p !== undefined; p = queue.shift()) {
            const o = await runPartition(engine, folder.folder, steps, p);
            outcomes.push(o);
            if (!opts.json)
              cx.io.stdout(
                `${progressBar(outcomes.length, partitions.length)} ${o.partition} ${o.status === "succeeded" ? "✓" : "✗"} ${formatMillis(o.ms)}${o.error ? `: ${o.error}` : ""}\n`,
              );
          }
        };
        await Promise.all(Array.from({ length: Math.min(concurrency, partitions.length) }, lane));
        const failed = outcomes.filter((o) => o.status !== "succeeded");
        const ordered = partitions.map((p) => outcomes.find((o) => o.partition === p)!);
        if (opts.json) json(cx, { ...summary, results: ordered, failed: failed.map((f) => f.partition) });
        else
          cx.io.stdout(
            failed.length
              ? `${failed.length} of ${partitions.length} partition(s) failed: ${failed.map((f) => f.partition).join(", ")}\n`
              : `backfilled ${partitions.length} partition(s)\n`,
          );
        if (failed.length) cx.setExitCode(1);
      });
    });
}
