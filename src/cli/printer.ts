/** Live output of `sluice dev` and `sluice worker`: run lifecycle lines and captured logs. */
import { formatMillis } from "../core/duration.js";
import type { Engine } from "../engine/engine.js";
import type { LogLine, RunRecord } from "../store/types.js";
import { terminalSafe } from "../core/terminal-text.js";
import { preview, runName, safe, timeLabel } from "./format.js";
import { jsonLine, type LogFormat } from "./log-format.js";

/** Continuation lines of a multi-line log line in the live output. */
const CONTINUATION = "  │   ";

/** Prints captured log lines of runs as they happen (`json`: one object per line, event `log`). */
export function logEcho(
  write: (text: string) => void,
  format: LogFormat = "text",
): (line: LogLine, run: RunRecord) => void {
  if (format === "json")
    return (line, run) =>
      write(
        jsonLine(
          {
            level: line.level,
            msg: line.message,
            event: "log",
            runId: run.id,
            workflow: run.workflow,
            attempt: line.attempt,
            stepKey: line.stepKey,
          },
          line.ts,
        ),
      );
  return (line, run) => {
    const where = line.stepKey ? ` [${safe(line.stepKey)}]` : "";
    const level = line.level === "info" ? "" : ` ${safe(line.level)}`;
    write(
      `  │ ${runName(run)} ${safe(run.id)}${where}${level}: ${terminalSafe(line.message, { indent: CONTINUATION })}\n`,
    );
  };
}

/**
 * Prints a line when a run starts and when a claim of it ends (`json`: one object per
 * line, events `run.started`, `run.<status>`, `run.retrying`, `run.fenced`). Returns an
 * unsubscribe function.
 */
export function followRuns(engine: Engine, write: (text: string) => void, format: LogFormat = "text"): () => void {
  if (format === "json") return followRunsJson(engine, write);
  const onStarted = (run: RunRecord, claim: number) => {
    const resumed = claim > run.attempt ? " (resumed)" : "";
    write(`▶ ${runName(run)} ${safe(run.id)} attempt ${run.attempt}/${run.maxAttempts}${resumed}\n`);
  };
  const onSettled = (id: string) => {
    void engine
      .getRun(id)
      .then((run) => {
        if (!run) return;
        const took =
          run.startedAt !== null && run.finishedAt !== null
            ? ` in ${formatMillis(run.finishedAt - run.startedAt)}`
            : "";
        const id = safe(run.id);
        if (run.status === "succeeded")
          write(`✓ ${runName(run)} ${id} succeeded${took} → ${preview(run.result, 120)}\n`);
        else if (run.status === "failed") write(`✗ ${runName(run)} ${id} failed${took}: ${safe(run.error?.message)}\n`);
        else if (run.status === "cancelled") write(`⊘ ${runName(run)} ${id} cancelled: ${safe(run.error?.message)}\n`);
        else if (run.status === "pending" && run.error) {
          write(
            `↻ ${runName(run)} ${id} attempt ${run.attempt - 1} failed (${safe(run.error.message)}); retry ${run.attempt}/${run.maxAttempts} at ${timeLabel(run.readyAt)}\n`,
          );
        }
      })
      .catch(() => {
        // the store closed while shutting down: nothing left to print
      });
  };
  const onFenced = (id: string) =>
    write(`⚠ lost the lease on run ${safe(id)}: another attempt owns it, so this attempt's writes were refused\n`);
  engine.events.on("started", onStarted);
  engine.events.on("settled", onSettled);
  engine.events.on("fenced", onFenced);
  return () => {
    engine.events.off("fenced", onFenced);
    engine.events.off("started", onStarted);
    engine.events.off("settled", onSettled);
  };
}

function followRunsJson(engine: Engine, write: (text: string) => void): () => void {
  const about = (run: RunRecord) => ({ runId: run.id, workflow: run.workflow, attempt: run.attempt });
  const onStarted = (run: RunRecord) =>
    write(jsonLine({ level: "info", msg: `${run.workflow} ${run.id} started`, event: "run.started", ...about(run) }));
  const onSettled = (id: string) => {
    void engine
      .getRun(id)
      .then((run) => {
        if (!run) return;
        const retrying = run.status === "pending" && run.error !== null;
        if (!retrying && run.status !== "succeeded" && run.status !== "failed" && run.status !== "cancelled") return;
        const event = retrying ? "run.retrying" : `run.${run.status}`;
        const msg = run.error
          ? `${run.workflow} ${run.id} ${run.status}: ${run.error.message}`
          : `${run.workflow} ${run.id} ${run.status}`;
        write(
          jsonLine({
            level: run.status === "succeeded" ? "info" : "warn",
            msg,
            event,
            status: run.status,
            ...about(run),
          }),
        );
      })
      .catch(() => {
        // the store closed while shutting down: nothing left to print
      });
  };
  const onFenced = (id: string) =>
    write(jsonLine({ level: "warn", msg: `lost the lease on run ${id}`, event: "run.fenced", runId: id }));
  engine.events.on("started", onStarted);
  engine.events.on("settled", onSettled);
  engine.events.on("fenced", onFenced);
  return () => {
    engine.events.off("fenced", onFenced);
    engine.events.off("started", onStarted);
    engine.events.off("settled", onSettled);
  };
}
