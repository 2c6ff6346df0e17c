/**
 * The run page's timeline (a Gantt chart) as data: one row for the run, then one per
 * step in call order, child runs (tasks) with their queued and running spans, sleeps
 * until their wake time, waits and approvals until decided (or now). Pure.
 */
import type { ApiRun, ApiRunDetail, ApiStep } from "../../../http/api-types";
import { runDuration } from "./run-duration";
import type { DisplayStatus } from "./status";

/** One bar of the chart. */
export interface TimelineRow {
  id: string;
  label: string;
  kind: "run" | ApiStep["kind"];
  status: DisplayStatus;
  /** Start and end of the bar (ms since epoch); end is now for unfinished rows. */
  start: number;
  end: number;
  /** Part of the bar spent queued before running (tasks). */
  queuedUntil: number | null;
  /** The duration shown: a run's or task's running time ({@link runDuration}), else the bar's span; null before a start. */
  durationMs: number | null;
  /** Attempts used (step retries, or the child run's attempt). */
  attempts: number;
  open: boolean;
  /** The child run behind a task row. */
  child: ApiRun | null;
  /** The step behind the row (null for the run row and for children without a step). */
  step: ApiStep | null;
}

/** The chart: rows plus the time span they cover. */
export interface Timeline {
  rows: TimelineRow[];
  start: number;
  end: number;
}

const t = (iso: string | null) => (iso ? new Date(iso).getTime() : null);

/** True for a sleep whose wake time has passed (inline sleeps stay `pending` in the checkpoint once over). */
function sleptThrough(step: ApiStep, runStatus: ApiRun["status"], now: number): boolean {
  return (
    step.kind === "sleep" &&
    step.status === "pending" &&
    (runStatus === "succeeded" || (step.wakeAt !== null && new Date(step.wakeAt).getTime() <= now))
  );
}

/** The display status of one step (a task's is its child run's). */
export function stepStatus(
  step: ApiStep,
  child: ApiRun | null | undefined,
  runStatus: ApiRun["status"],
  now: number,
): DisplayStatus {
  if (child) return child.status;
  if (step.status === "done" || sleptThrough(step, runStatus, now)) return "succeeded";
  if (step.status === "error") return "failed";
  if (runStatus === "cancelled" || runStatus === "failed") return "cancelled";
  return step.kind === "sleep" ? "sleeping" : "waiting";
}

/** Builds the chart of a run at time `now`. */
export function buildTimeline(detail: ApiRunDetail, now: number): Timeline {
  const { run, steps, children } = detail;
  const byId = new Map(children.map((c) => [c.id, c]));
  const runStart = t(run.startedAt) ?? t(run.createdAt)!;
  const runEnd = t(run.finishedAt) ?? now;
  const rows: TimelineRow[] = [
    {
      id: `run:${run.id}`,
      label: run.name,
      kind: "run",
      status: run.status,
      start: t(run.createdAt)!,
      end: runEnd,
      queuedUntil: t(run.startedAt),
      durationMs: runDuration(run, now),
      attempts: run.attempt,
      open: run.finishedAt === null,
      child: null,
      step: null,
    },
  ];
  const used = new Set<string>();
  for (const step of [...steps].sort((a, b) => a.position - b.position || a.startedAt.localeCompare(b.startedAt))) {
    const child = step.childId ? (byId.get(step.childId) ?? null) : null;
    if (child) used.add(child.id);
    const start = child ? t(child.createdAt)! : t(step.startedAt)!;
    const planned = step.kind === "sleep" && step.status === "pending" ? t(step.wakeAt) : null;
    const finished = child
      ? t(child.finishedAt)
      : sleptThrough(step, run.status, now)
        ? t(step.wakeAt)
        : t(step.finishedAt);
    const stopped = run.finishedAt !== null ? runEnd : now;
    const end = finished ?? planned ?? stopped;
    rows.push({
      id: `step:${step.key}`,
      label: step.key,
      kind: step.kind,
      status: stepStatus(step, child, run.status, now),
      start,
      end: Math.max(end, start),
      queuedUntil: child ? (t(child.startedAt) ?? (child.finishedAt ? null : now)) : null,
      durationMs: child ? runDuration(child, now) : Math.max(end, start) - start,
      attempts: child ? child.attempt : step.attempts,
      open: finished === null && run.finishedAt === null,
      child,
      step,
    });
  }
  for (const child of children) {
    if (used.has(child.id)) continue;
    rows.push({
      id: `child:${child.id}`,
      label: child.parentKey ?? child.name,
      kind: "task",
      status: child.status,
      start: t(child.createdAt)!,
      end: t(child.finishedAt) ?? now,
      queuedUntil: t(child.startedAt),
      durationMs: runDuration(child, now),
      attempts: child.attempt,
      open: child.finishedAt === null,
      child,
      step: null,
    });
  }
  const start = Math.min(...rows.map((r) => r.start), runStart);
  const end = Math.max(...rows.map((r) => r.end), start + 1);
  return { rows, start, end };
}

/** "Nice" tick marks (ms offsets from the start) for a span: about `count` of them at 1/2/5 × 10^n steps. */
export function ticks(spanMs: number, count = 6): number[] {
  const raw = Math.max(1, spanMs / count);
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let x = 0; x <= spanMs + 1e-9; x += step) out.push(x);
  return out;
}
