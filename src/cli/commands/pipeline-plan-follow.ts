/**
 * Following a plan run (a selective `sluice pipeline run` or a resume) from the CLI: a line
 * per step as it finishes, then every step's outcome. Ctrl-C (SIGINT) detaches by default
 * (the plan lives in the store and goes on in any `sluice dev`/`server`/`worker` of the
 * project), printing how to follow, resume and cancel it; with `--cancel-on-interrupt` it
 * cancels the plan gracefully (the running step finishes, no new one starts).
 */
import type { Engine } from "../../engine/engine.js";
import { decodeValue } from "../../core/serde.js";
import { isActive } from "../../core/run-status.js";
import { cancelPlan } from "../../pipeline/runtime/plan-cancel.js";
import type { PlanPayload } from "../../pipeline/runtime/plan-workflow.js";
import type { RunRecord } from "../../store/types.js";
import { moduleName } from "../../worker/script-paths.js";
import { json, type CommandContext, pauseUnlessAborted } from "../command.js";
import { errorSuffix, statusLabel, tookLabel } from "../format.js";
import type { FollowEnd } from "./pipeline-backfill-follow.js";
import { wantsCancel } from "./pipeline-backfill-follow.js";

/** How to follow, resume and cancel a plan run. */
export function planHints(id: string): string {
  return (
    `  follow it here (or take it over after a crash): sluice pipeline resume ${id}\n` +
    `  status: sluice show ${id}\n` +
    `  cancel (the running step finishes first): sluice pipeline cancel ${id}\n`
  );
}

/** Options of {@link followPlan}. */
export interface PlanFollowOptions {
  readonly json?: boolean;
  /** Ctrl-C cancels the plan instead of detaching. */
  readonly cancelOnInterrupt?: boolean;
  readonly pollMs?: number;
}

function stepOf(payload: PlanPayload, children: readonly RunRecord[], step: string) {
  const child = children.find((c) => c.workflow === moduleName(step));
  return {
    step,
    run: child?.id ?? null,
    status: child?.status ?? "not run",
    result: child ? (decodeValue(child.result) ?? null) : null,
    error: child?.error?.message ?? null,
    took: child ? tookLabel(child) : null,
  };
}

/** Cancels plan `id` gracefully through `engine`, telling the user on stderr what it waits for. */
export async function cancelPlanWithNotice(cx: CommandContext, engine: Engine, id: string, reason: string) {
  let told = -1;
  return cancelPlan({ store: engine.store, cancel: (run, why) => engine.cancel(run, why) }, id, reason, {
    onWait: (running) => {
      if (running.length === told) return;
      told = running.length;
      cx.io.stderr(
        `cancelling plan ${id}: no new step starts; waiting for the running step to finish (Ctrl-C again to exit now)\n`,
      );
    },
  });
}

/** Prints progress until plan `id` ends or Ctrl-C, then its steps; sets the exit code. */
export async function followPlan(
  cx: CommandContext,
  engine: Engine,
  id: string,
  summary: Record<string, unknown>,
  opts: PlanFollowOptions,
): Promise<FollowEnd> {
  const store = engine.store;
  const signal = cx.io.signal;
  const printed = new Set<string>();
  for (;;) {
    const run = (await store.getRun(id))!;
    const payload = decodeValue<PlanPayload>(run.payload);
    const children = await store.listRuns({ parentId: id, limit: 1_000 });
    if (!opts.json)
      for (const c of children.slice().reverse())
        if (!isActive(c.status) && !printed.has(c.id)) {
          printed.add(c.id);
          cx.io.stderr(`step ${c.workflow} ${c.status}${errorSuffix(c)}\n`);
        }
    if (!isActive(run.status)) {
      report(cx, run, payload, children, summary, opts.json);
      return "finished";
    }
    if (signal.aborted) {
      cx.setExitCode(130);
      if (opts.cancelOnInterrupt || (await wantsCancel(cx, "the plan"))) {
        await cancelPlanWithNotice(
          cx,
          engine,
          id,
          opts.cancelOnInterrupt
            ? "cancelled by Ctrl-C (--cancel-on-interrupt)"
            : "cancelled by Ctrl-C (answered cancel)",
        );
        const after = (await store.getRun(id))!;
        const steps = await store.listRuns({ parentId: id, limit: 1_000 });
        cx.io.stderr(
          `\ncancelled plan ${id}: ${steps.filter((s) => s.status === "succeeded").length} step(s) succeeded; resume with: sluice pipeline resume ${id}\n`,
        );
        if (opts.json) json(cx, { ...summary, run: id, status: after.status, cancelled: true });
        return "cancelled";
      }
      cx.io.stderr(
        `\ndetached from plan ${id} (${children.filter((c) => c.status === "succeeded").length}/${payload.steps.length} step(s) succeeded); it stays in the store and goes on in any running sluice dev, server or worker of this project\n${planHints(id)}`,
      );
      if (opts.json) json(cx, { ...summary, run: id, status: run.status, detached: true });
      return "detached";
    }
    await pauseUnlessAborted(signal, opts.pollMs ?? 250);
  }
}

function report(
  cx: CommandContext,
  run: RunRecord,
  payload: PlanPayload,
  children: readonly RunRecord[],
  summary: Record<string, unknown>,
  asJson: boolean | undefined,
): void {
  const ordered = children.slice().reverse();
  const steps = payload.steps.map((s) => stepOf(payload, ordered, s));
  const result = decodeValue<{ partition: string | null } | undefined>(run.result);
  if (asJson)
    json(cx, {
      ...summary,
      run: run.id,
      status: run.status,
      partition: result?.partition ?? payload.partition ?? null,
      steps,
      error: run.error?.message ?? null,
    });
  else {
    for (const s of steps)
      cx.io.stdout(
        `  ${s.status === "not run" ? "- not run " : statusLabel(s.status as "succeeded")}  ${s.step}${s.took ? `  (${s.took})` : ""}${s.error ? `: ${s.error}` : ""}\n`,
      );
    cx.io.stdout(
      run.status === "succeeded"
        ? `plan ${run.id} succeeded${result?.partition ? ` for partition ${result.partition}` : ""}\n`
        : `plan ${run.id} ${run.status}${errorSuffix(run)}\n`,
    );
  }
  if (run.status !== "succeeded") cx.setExitCode(1);
}
