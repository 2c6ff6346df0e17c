/** Human-readable output of the CLI (the `--json` forms are in `json.ts`). */
import { formatMillis } from "../core/duration.js";
import { terminalSafe } from "../core/terminal-text.js";
import { timeText } from "../core/time.js";
import { cancelReason } from "../store/run-errors.js";

/** Continuation lines of multi-line user text (logs, stacks) in `sluice show`. */
const CONTINUATION = "          ";
import type { LogRecord, RunRecord, StepRecord } from "../store/types.js";

const ICON: Record<RunRecord["status"], string> = {
  pending: "…",
  running: "▶",
  waiting: "⏸",
  succeeded: "✓",
  failed: "✗",
  cancelled: "⊘",
};

/** The run's status with its icon. */
export function statusLabel(status: RunRecord["status"]): string {
  return `${ICON[status]} ${status}`;
}

/** Shortens JSON text for one line (control characters escaped). */
export function preview(text: string | null, max = 80): string {
  if (text === null) return "";
  return terminalSafe(text.length > max ? `${text.slice(0, max - 1)}…` : text);
}

/** A user-provided string (id, key, message) for one line of human output. */
export const safe = (text: string | null | undefined): string => terminalSafe(text ?? "");

/** `2026-11-29 22:33:52` in UTC; a stored value that is not a date is shown as such (never throws). */
export function timeLabel(ms: number | null): string {
  return timeText(ms);
}

/** How long a run took, or has been going. */
export function tookLabel(run: RunRecord, now = Date.now()): string {
  if (run.startedAt === null) return "-";
  return formatMillis((run.finishedAt ?? now) - run.startedAt);
}

/**
 * What a run's error says after its status (`run x cancelled: <this>`): for a cancellation
 * its reason alone (the stored message, `cancelled: <reason>`, would say "cancelled" twice),
 * null when it has none; otherwise the error's message. Not made safe to print.
 */
export function errorMessage(run: RunRecord): string | null {
  if (!run.error) return null;
  return run.error.code === "CANCELLED" ? cancelReason(run.error) : run.error.message;
}

/** `: <message>` after a run's status ({@link errorMessage}), or nothing; safe to print. */
export function errorSuffix(run: RunRecord): string {
  const message = errorMessage(run);
  return message === null ? "" : `: ${safe(message)}`;
}

/** The run's display name, `workflow` or `workflow:task`, safe to print. */
export function runName(run: RunRecord): string {
  return terminalSafe(run.task ? `${run.workflow}:${run.task}` : run.workflow);
}

/** Renders rows as an aligned text table; every cell is made safe to print. */
export function table(headers: string[], cells: string[][]): string {
  const rows = cells.map((r) => r.map((c) => terminalSafe(c)));
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].join("\n");
}

/** The `sluice runs` table. */
export function runsTable(runs: RunRecord[]): string {
  if (runs.length === 0) return "no runs";
  return table(
    ["ID", "WORKFLOW", "STATUS", "ATTEMPT", "CREATED", "TOOK"],
    runs.map((r) => [
      r.id,
      runName(r),
      statusLabel(r.status),
      `${r.attempt}/${r.maxAttempts}`,
      timeLabel(r.createdAt),
      tookLabel(r),
    ]),
  );
}

/** The `sluice show` report. */
export function runReport(
  run: RunRecord,
  steps: StepRecord[],
  children: RunRecord[],
  logs: Array<LogRecord & { child?: RunRecord | null }>,
): string {
  const out: string[] = [];
  out.push(`run       ${safe(run.id)}`);
  out.push(`workflow  ${runName(run)}${run.version ? `  (code ${run.version.slice(0, 12)})` : ""}`);
  out.push(`status    ${statusLabel(run.status)}`);
  out.push(`attempt   ${run.attempt} of ${run.maxAttempts}`);
  out.push(
    `created   ${timeLabel(run.createdAt)}   started ${timeLabel(run.startedAt)}   finished ${timeLabel(run.finishedAt)}   took ${tookLabel(run)}`,
  );
  if (run.parentId) out.push(`parent    ${safe(run.parentId)} (step ${safe(run.parentKey)})`);
  out.push(`payload   ${preview(run.payload, 400)}`);
  if (run.result !== null) out.push(`result    ${preview(run.result, 400)}`);
  if (run.error) {
    const message = errorMessage(run);
    out.push(
      `error     ${safe(run.error.name)}${run.error.code ? ` [${safe(run.error.code)}]` : ""}${message === null ? "" : `: ${terminalSafe(message, { indent: CONTINUATION })}`}`,
    );
    if (run.error.stack && run.status === "failed")
      out.push(
        ...run.error.stack
          .split("\n")
          .slice(1, 6)
          .map((l) => `${CONTINUATION}${safe(l.trim())}`),
      );
  }
  out.push("");
  out.push(steps.length ? "steps" : "steps     (none)");
  for (const s of steps) {
    const took = s.finishedAt === null ? "" : `  ${formatMillis(s.finishedAt - s.startedAt)}`;
    const detail =
      s.status === "error"
        ? `error: ${safe(s.error?.message)}`
        : s.status === "pending"
          ? s.wakeAt
            ? `pending until ${timeLabel(s.wakeAt)}`
            : "pending"
          : preview(s.value, 60);
    const extra = [s.attempts > 1 ? `${s.attempts} attempts` : "", s.childId ? `child ${s.childId}` : ""]
      .filter(Boolean)
      .join(", ");
    out.push(
      `  ${s.status === "done" ? "✓" : s.status === "error" ? "✗" : "…"} ${s.kind.padEnd(8)} ${safe(s.key)}  ${detail}${took}${extra ? `  (${safe(extra)})` : ""}`,
    );
  }
  if (children.length) {
    out.push("");
    out.push("children");
    for (const c of children) out.push(`  ${statusLabel(c.status)}  ${safe(c.id)}  ${runName(c)}  ${tookLabel(c)}`);
  }
  out.push("");
  out.push(logs.length ? "logs" : "logs      (none)");
  for (const l of logs) {
    const who = l.child ? `(${safe(l.child.task ?? l.child.workflow)} ${safe(l.child.id.slice(-8))}) ` : "";
    const where = `${who}${l.stepKey ? `[${safe(l.stepKey)}] ` : ""}`;
    out.push(
      `  ${timeLabel(l.ts).slice(11)} #${l.attempt} ${safe(l.level).padEnd(5)} ${where}${terminalSafe(l.message, { indent: "    " })}`,
    );
  }
  return out.join("\n");
}
