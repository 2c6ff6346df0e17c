/**
 * `sluice pipeline backfill status|cancel|resume <id>`. `status` prints a backfill's
 * partitions (`--follow` waits for the end); `cancel` cancels it and its unfinished
 * partitions; `resume` continues one whose process died (this process's worker takes
 * over its expired leases) or, once it failed or was cancelled, starts a new backfill of
 * the same partitions that skips what already succeeded: only the failed and unrun
 * partitions and steps run again.
 */
import { backfillProgress, isFinal, type BackfillProgress } from "../../pipeline/runtime/backfill-progress.js";
import type { BackfillPayload } from "../../pipeline/runtime/backfill-workflow.js";
import { startBackfillResume } from "../../pipeline/runtime/backfill-resume.js";
import { decodeValue } from "../../core/serde.js";
import { terminalSafe } from "../../core/terminal-text.js";
import { json, type CommandContext } from "../command.js";
import { localUser } from "../local-user.js";
import { parseCount, parseDurationOption } from "../options.js";
import { withEngine } from "../project.js";
import { backfillHints, cancelWithNotice, followBackfill, progressBar } from "./pipeline-backfill-follow.js";
import { withPipelineRuntime } from "./pipeline-local.js";

/** The verbs after `sluice pipeline backfill`. */
export const BACKFILL_VERBS = ["status", "cancel", "resume"] as const;

interface AdminOptions {
  dir?: string;
  db?: string;
  json?: boolean;
  follow?: boolean;
  detach?: boolean;
  concurrency?: string;
  lease: string;
  cancelOnInterrupt?: boolean;
}

function statusText(p: BackfillProgress): string {
  const lines = [
    `backfill ${p.id} of ${p.folder}: ${p.status}, ${p.finished}/${p.partitions.length} partition(s) finished${p.scheme ? ` (${p.scheme})` : ""}`,
    `  steps: ${p.steps.join(" → ")}; concurrency ${p.concurrency}${p.force ? "; --force" : ""}${p.resumeOf ? `; resumes ${p.resumeOf}` : ""}`,
    `  ${progressBar(p.finished, p.partitions.length)} ${Object.entries(p.counts)
      .filter(([, n]) => n > 0)
      .map(([s, n]) => `${n} ${s}`)
      .join(", ")}`,
    ...p.partitions.map(
      (x) =>
        `  ${x.state.padEnd(9)} ${terminalSafe(x.partition)}${x.run ? `  ${x.run}` : ""}${x.error ? `: ${terminalSafe(x.error)}` : ""}`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}

/** Runs one of {@link BACKFILL_VERBS}. */
export async function backfillAdmin(
  cx: CommandContext,
  verb: (typeof BACKFILL_VERBS)[number],
  id: string,
  opts: AdminOptions,
): Promise<void> {
  if (verb === "status") {
    await withEngine(cx.io, opts, async (engine) => {
      const p = await backfillProgress(engine.store, id);
      if (opts.follow && !isFinal(p.status)) {
        await followBackfill(cx, engine.store, id, {
          json: opts.json,
          cancel: (i, r) => cancelWithNotice(cx, engine, i, r),
        });
        return;
      }
      if (opts.json) json(cx, p);
      else cx.io.stdout(statusText(p));
      if (p.status === "failed" || p.status === "cancelled") cx.setExitCode(1);
    });
    return;
  }
  if (verb === "cancel") {
    await withEngine(cx.io, opts, async (engine) => {
      const before = await backfillProgress(engine.store, id);
      if (isFinal(before.status)) {
        if (opts.json) json(cx, { id, status: before.status, cancelled: false });
        else cx.io.stdout(`backfill ${id} had already finished (${before.status}); nothing to cancel\n`);
        return;
      }
      await cancelWithNotice(cx, engine, id, "cancelled with sluice pipeline backfill cancel");
      const after = await backfillProgress(engine.store, id);
      if (opts.json) json(cx, { id, status: after.status, cancelled: true, counts: after.counts });
      else
        cx.io.stdout(
          `cancelled backfill ${id}: ${after.counts.succeeded} partition(s) succeeded, ${after.counts.skipped} skipped, ${after.partitions.length - after.counts.succeeded - after.counts.skipped} not finished; resume with: sluice pipeline backfill resume ${id}\n`,
        );
    });
    return;
  }
  const leaseMs = parseDurationOption(opts.lease, "--lease");
  const { progress, payload } = await withEngine(cx.io, opts, async (engine) => {
    const progress = await backfillProgress(engine.store, id);
    const run = await engine.store.getRun(id);
    return { progress, payload: decodeValue<BackfillPayload>(run!.payload) };
  });
  if (progress.status === "succeeded") {
    if (opts.json) json(cx, { id, status: progress.status, resumed: false });
    else cx.io.stdout(`backfill ${id} already succeeded; nothing to resume\n`);
    return;
  }
  await withPipelineRuntime(
    cx.io,
    opts,
    [...payload.steps, ...(payload.mapped ?? []).flatMap((m) => m.steps)],
    async (_host, engine) => {
      let target = id;
      if (isFinal(progress.status)) {
        target = await startBackfillResume(
          engine.store,
          (w, p) => engine.enqueueRun(w, p, { createdBy: localUser(cx.io.env) }),
          id,
          opts.concurrency !== undefined ? Math.max(1, parseCount(opts.concurrency, "--concurrency")) : undefined,
        );
        if (!opts.json)
          cx.io.stdout(
            `resuming backfill ${id} (${progress.status}) as backfill ${target}: partitions and steps that already succeeded are skipped\n`,
          );
      } else if (!opts.json)
        cx.io.stdout(
          `continuing backfill ${id} (${progress.finished}/${progress.partitions.length} partition(s) finished); runs left by a dead process are taken over when their lease expires\n`,
        );
      if (opts.detach) {
        if (opts.json) json(cx, { id: target, resumeOf: target === id ? null : id, detached: true });
        else cx.io.stdout(backfillHints(target));
        return;
      }
      await followBackfill(cx, engine.store, target, {
        json: opts.json,
        cancelOnInterrupt: opts.cancelOnInterrupt,
        cancel: (i, r) => cancelWithNotice(cx, engine, i, r),
      });
    },
    { worker: !opts.detach, leaseMs },
  );
}
