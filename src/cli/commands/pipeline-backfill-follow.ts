/**
 * Following a backfill from the CLI: a progress line per finished partition until the
 * backfill ends. Ctrl-C (SIGINT) detaches by default (the backfill lives in the store and
 * goes on in any `sluice dev`/`server`/`worker` of the project, or with
 * `sluice pipeline backfill resume`), printing how to follow and cancel it; with
 * `--cancel-on-interrupt` it cancels the backfill instead, as `airflow dags backfill` does.
 */
import type { Engine } from "../../engine/engine.js";
import type { Store } from "../../store/types.js";
import { cancelBackfill } from "../../pipeline/runtime/backfill-cancel.js";
import {
  backfillProgress,
  isFinal,
  type BackfillProgress,
  type PartitionProgress,
} from "../../pipeline/runtime/backfill-progress.js";
import { json, type CommandContext, pauseUnlessAborted } from "../command.js";
import { terminalSafe } from "../../core/terminal-text.js";

/** A text progress bar: `[#####.....] 2/4`. */
export function progressBar(done: number, total: number, width = 20): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total}`;
}

const MARK: Record<string, string> = {
  succeeded: "✓",
  failed: "✗",
  cancelled: "cancelled",
  skipped: "skipped (already done)",
};

/** One line about a finished partition. */
function partitionLine(p: PartitionProgress, finished: number, total: number): string {
  const err = p.error ? `: ${terminalSafe(p.error)}` : "";
  return `${progressBar(finished, total)} ${terminalSafe(p.partition)} ${MARK[p.state] ?? p.state}${err}\n`;
}

/** How to follow, resume and cancel a backfill. */
export function backfillHints(id: string): string {
  return (
    `  follow: sluice pipeline backfill status ${id} --follow\n` +
    `  continue it in this terminal: sluice pipeline backfill resume ${id}\n` +
    `  cancel: sluice pipeline backfill cancel ${id}\n`
  );
}

/** The closing summary of a finished backfill. */
function summaryLine(p: BackfillProgress): string {
  const total = p.partitions.length;
  const failed = p.partitions.filter((x) => x.state === "failed").map((x) => x.partition);
  const skipped = p.counts.skipped ? `, ${p.counts.skipped} skipped as already done` : "";
  if (p.status === "succeeded") return `backfilled ${total} partition(s)${skipped}\n`;
  if (p.status === "cancelled")
    return `backfill ${p.id} cancelled: ${p.counts.succeeded} succeeded${skipped}, ${total - p.finished + p.counts.cancelled} not run; resume with: sluice pipeline backfill resume ${p.id}\n`;
  return `${failed.length} of ${total} partition(s) failed: ${failed.join(", ")}; retry only them with: sluice pipeline backfill resume ${p.id}\n`;
}

/**
 * Cancels a backfill gracefully through `engine` (running steps finish first), telling
 * the user on stderr what it waits for.
 */
export async function cancelWithNotice(cx: CommandContext, engine: Engine, id: string, reason: string): Promise<void> {
  let told = -1;
  await cancelBackfill({ store: engine.store, cancel: (run, why) => engine.cancel(run, why) }, id, reason, {
    onWait: (running) => {
      if (running.length === told) return;
      told = running.length;
      cx.io.stderr(
        `cancelling backfill ${id}: no new step starts; waiting for ${running.length} running step(s) to finish (Ctrl-C again to exit now)\n`,
      );
    },
  });
}

/**
 * On a terminal, asks whether Ctrl-C should detach from or cancel `what` (default: detach, also
 * when no answer comes); elsewhere (scripts, CI) detaches without asking.
 */
export async function wantsCancel(cx: CommandContext, what: string): Promise<boolean> {
  if (!cx.io.ask) return false;
  const answer = await cx.io.ask(
    `\nCtrl-C: detach (${what} goes on in the store) or cancel it? [d]etach / [c]ancel (Ctrl-C again exits, detached): `,
  );
  return /^\s*c/i.test(answer ?? "");
}

/** How following ended. */
export type FollowEnd = "finished" | "detached" | "cancelled";

/** Options of {@link followBackfill}. */
export interface FollowOptions {
  readonly json?: boolean;
  /** Ctrl-C cancels the backfill instead of detaching. */
  readonly cancelOnInterrupt?: boolean;
  readonly pollMs?: number;
  /** Cancels through the engine (so this process's worker stops its runs at once). */
  readonly cancel: (id: string, reason: string) => Promise<unknown>;
}

/** Prints progress until the backfill ends or Ctrl-C; sets the exit code. */
export async function followBackfill(
  cx: CommandContext,
  store: Store,
  id: string,
  opts: FollowOptions,
): Promise<FollowEnd> {
  const printed = new Set<string>();
  let finished = 0;
  const signal = cx.io.signal;
  for (;;) {
    const p = await backfillProgress(store, id);
    if (!opts.json) {
      for (const part of p.partitions) {
        if (printed.has(part.partition) || !["succeeded", "failed", "cancelled", "skipped"].includes(part.state))
          continue;
        if (part.state === "cancelled" && p.status !== "cancelled") continue;
        printed.add(part.partition);
        cx.io.stdout(partitionLine(part, ++finished, p.partitions.length));
      }
    }
    if (isFinal(p.status)) {
      if (opts.json) json(cx, p);
      else cx.io.stdout(summaryLine(p));
      if (p.status !== "succeeded") cx.setExitCode(1);
      return "finished";
    }
    if (signal.aborted) {
      cx.setExitCode(130);
      if (opts.cancelOnInterrupt || (await wantsCancel(cx, "the backfill"))) {
        await opts.cancel(
          id,
          opts.cancelOnInterrupt
            ? "cancelled by Ctrl-C (--cancel-on-interrupt)"
            : "cancelled by Ctrl-C (answered cancel)",
        );
        const after = await backfillProgress(store, id);
        cx.io.stderr(
          `\ncancelled backfill ${id}: ${after.counts.succeeded} partition(s) succeeded, ${after.counts.skipped} skipped; resume with: sluice pipeline backfill resume ${id}\n`,
        );
        if (opts.json) json(cx, after);
        return "cancelled";
      }
      cx.io.stderr(
        `\ndetached from backfill ${id} (${p.finished}/${p.partitions.length} partition(s) finished); it stays in the store and goes on in any running sluice dev, server or worker of this project\n${backfillHints(id)}`,
      );
      if (opts.json) json(cx, p);
      return "detached";
    }
    await pauseUnlessAborted(signal, opts.pollMs ?? 250);
  }
}
