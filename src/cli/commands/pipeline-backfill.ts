/**
 * `sluice pipeline backfill <folder> --from-partition A --to-partition B` (or `--keys a,b,c`
 * for dynamic partitions): a durable backfill. It becomes one `sluice:pipeline-backfill`
 * run in the store, with one plan run per partition and one step run per partition and
 * step; the CLI runs a worker and follows it with a progress line per partition.
 * `--detach` only starts it; Ctrl-C detaches (or cancels, with `--cancel-on-interrupt`).
 * `sluice pipeline backfill status|cancel|resume <id>` manage it afterwards.
 */
import type { Command } from "commander";
import { typedRange, splitKeys } from "../../pipeline/backfill-range.js";
import { BACKFILL_WORKFLOW, type BackfillPayload } from "../../pipeline/runtime/backfill-workflow.js";
import { refuseOverlappingBackfill } from "../../pipeline/runtime/backfill-overlap.js";
import { PipelineCatalog } from "../../pipeline/runtime/catalog.js";
import { describeScheme } from "../../pipeline/lineage-schemes.js";
import { json, type CommandContext } from "../command.js";
import { localUser } from "../local-user.js";
import { parseCount, parseDurationOption, parseJsonArg } from "../options.js";
import { DB_OPTION, DIR_OPTION, resolveProject } from "../project.js";
import { backfillAdmin, BACKFILL_VERBS } from "./pipeline-backfill-admin.js";
import { backfillHints, cancelWithNotice, followBackfill, progressBar } from "./pipeline-backfill-follow.js";
import { withPipelineRuntime } from "./pipeline-local.js";
import { folderArg, pipelineFolder, planSteps, upstreamOf } from "./pipeline-shared.js";

/** Registers `sluice pipeline backfill`. */
export function registerPipelineBackfill(pipeline: Command, cx: CommandContext): void {
  pipeline
    .command("backfill")
    .description(
      "re-run a pipeline's steps for every partition of a range, as a durable run; also: backfill status|cancel|resume <id>",
    )
    .argument("<folder>", "pipeline folder, e.g. f/lake (or status, cancel, resume followed by a backfill id)")
    .argument("[id]", "backfill id, after status, cancel or resume")
    .option("--from-partition <value>", "first partition (in the scheme's format, or an ISO date)")
    .option("--to-partition <value>", "last partition, inclusive")
    .option("--keys <list>", "dynamic partition keys to backfill, comma-separated (instead of a range)")
    .option("--scheme <kind>", "the range's time kind when the steps have several (daily, hourly, weekly, monthly)")
    .option(
      "--map-partitions",
      "also run later steps of coarser time schemes (weekly, monthly after daily) for the windows the range overlaps, after it",
    )
    .option("--to <nodes>", "only the steps up to these nodes (script names, paths or asset URIs)")
    .option("--from <script>", "start script of the slice")
    .option("--args <json>", "extra arguments given to every step, as a JSON object")
    .option("--concurrency <n>", "steps running at once across the backfill")
    .option("--force", "also re-run partitions and steps that already succeeded at the same code version")
    .option("--detach", "start the backfill and exit; a running sluice dev, server or worker runs it")
    .option("--cancel-on-interrupt", "Ctrl-C cancels the backfill (default: Ctrl-C detaches and it goes on)")
    .option("--follow", "with status: wait until the backfill ends, printing progress")
    .option(
      "--lease <duration>",
      "lease of this process's worker: another process takes over this long after a crash",
      "30s",
    )
    .option("--dry-run", "print the partitions and steps without running them")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (folderText: string, id: string | undefined, opts) => {
      if ((BACKFILL_VERBS as readonly string[]).includes(folderText) && id !== undefined)
        return backfillAdmin(cx, folderText as (typeof BACKFILL_VERBS)[number], id, opts);
      const concurrency = Math.max(1, parseCount(opts.concurrency ?? "1", "--concurrency"));
      const leaseMs = parseDurationOption(opts.lease, "--lease");
      const args = parseJsonArg(opts.args, "--args", {}) as Record<string, unknown>;
      const project = resolveProject(cx.io, opts.dir, opts.db);
      const folder = pipelineFolder(
        await PipelineCatalog.load(project.root),
        folderArg(project.root, cx.io.cwd, folderText),
      );
      const plan = planSteps(folder, { to: opts.to, from: opts.from });
      const range = typedRange(
        plan.steps.map((path) => ({
          path,
          scheme: folder.schemes.get(`script:${path}`)?.spec,
          notLoaded: folder.broken.get(path),
          upstream: upstreamOf(folder, path),
        })),
        {
          fromPartition: opts.fromPartition,
          toPartition: opts.toPartition,
          ...(opts.keys !== undefined && { keys: splitKeys(opts.keys) }),
          ...(opts.scheme !== undefined && { kind: opts.scheme }),
          ...(opts.mapPartitions && { mapCoarser: true }),
        },
      );
      const mapped = range.mapped.map((m) => ({
        scheme: describeScheme(m.scheme),
        steps: m.steps,
        partitions: m.partitions,
      }));
      const mappedText = mapped
        .map(
          (m) =>
            `  mapped: ${m.steps.join(" → ")} for ${m.partitions.length} ${m.scheme} partition(s): ${m.partitions.join(", ")} (after the range)\n`,
        )
        .join("");
      const allSteps = [...range.steps, ...mapped.flatMap((m) => m.steps)];
      const scheme = describeScheme(range.scheme);
      const summary = {
        folder: folder.folder,
        scheme,
        partitions: range.partitions,
        steps: range.steps,
        excluded: range.excluded,
        mapped,
        concurrency,
        force: !!opts.force,
      };
      const excludedText = range.excluded.map((e) => `  left out: ${e.step} (${e.reason})\n`).join("");
      if (opts.dryRun) {
        if (opts.json) json(cx, { ...summary, dryRun: true });
        else {
          cx.io.stdout(
            `backfill of ${folder.folder}: ${range.partitions.length} ${scheme} partition(s) × ${range.steps.length} step(s)\n`,
          );
          cx.io.stdout(`  partitions: ${range.partitions.join(", ")}\n  steps: ${range.steps.join(" → ")}\n`);
          cx.io.stdout(mappedText + excludedText);
          cx.io.stdout("(dry run: nothing was started)\n");
        }
        return;
      }
      const payload: BackfillPayload = {
        folder: folder.folder,
        steps: range.steps,
        partitions: range.partitions,
        concurrency,
        scheme,
        ...(opts.force && { force: true }),
        ...(Object.keys(args).length > 0 && { args }),
        ...(mapped.length > 0 && { mapped }),
      };
      await withPipelineRuntime(
        cx.io,
        opts,
        allSteps,
        async (host, engine) => {
          // `--args` reach every step: refused here, as an enqueue of a step would refuse them, before the backfill is stored.
          host.checkStepArguments(allSteps, args);
          await refuseOverlappingBackfill(engine.store, payload);
          const handle = await engine.enqueueRun(BACKFILL_WORKFLOW, payload, { createdBy: localUser(cx.io.env) });
          if (!opts.json) {
            cx.io.stdout(
              `backfill ${handle.id} of ${folder.folder}: ${range.partitions.length} ${scheme} partition(s) × ${range.steps.length} step(s), concurrency ${concurrency}\n${mappedText}${excludedText}`,
            );
            if (!opts.detach)
              cx.io.stdout(
                `${progressBar(0, range.partitions.length + mapped.reduce((n, m) => n + m.partitions.length, 0))}\n`,
              );
          }
          if (opts.detach) {
            if (opts.json) json(cx, { ...summary, id: handle.id, detached: true });
            else
              cx.io.stdout(
                `started; it runs in any sluice dev, server or worker of this project (none here: --detach)\n${backfillHints(handle.id)}`,
              );
            return;
          }
          await followBackfill(cx, engine.store, handle.id, {
            json: opts.json,
            cancelOnInterrupt: opts.cancelOnInterrupt,
            cancel: (id, reason) => cancelWithNotice(cx, engine, id, reason),
          });
        },
        { worker: !opts.detach, leaseMs },
      );
    });
}
