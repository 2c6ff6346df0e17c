/** Live output of `sluice dev` and `sluice worker`: run lifecycle lines and captured logs. */
import { formatMillis } from "../core/duration.js";
import type { Engine } from "../engine/engine.js";
import { isTerminal, type LogLine, type RunRecord } from "../store/types.js";
import { terminalSafe } from "../core/terminal-text.js";
import { errorMessage, errorSuffix, preview, runName, safe, timeLabel } from "./format.js";
import { jsonLine, type LogFormat } from "./log-format.js";
import { activeTraceIds } from "../worker/tracing.js";

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
            ...activeTraceIds(),
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
  return subscribeRuns(engine, format === "json" ? jsonRenderer(write) : textRenderer(write));
}

/** What a format prints for each lifecycle event (`settled` gets the run as stored after the claim). */
interface RunRenderer {
  started(run: RunRecord, claim: number): void;
  settled(run: RunRecord): void;
  fenced(id: string): void;
}

/** Subscribes `render` to the engine's run events; returns the unsubscribe function. */
function subscribeRuns(engine: Engine, render: RunRenderer): () => void {
  const onStarted = (run: RunRecord, claim: number) => render.started(run, claim);
  const onSettled = (id: string, finished?: RunRecord) => {
    if (finished) return render.settled(finished);
    void engine
      .getRun(id)
      .then((run) => {
        if (run) render.settled(run);
      })
      .catch(() => {
        // the store closed while shutting down: nothing left to print
      });
  };
  const onFenced = (id: string) => render.fenced(id);
  engine.events.on("started", onStarted);
  engine.events.on("settled", onSettled);
  engine.events.on("reclaimed", onSettled);
  engine.events.on("fenced", onFenced);
  return () => {
    engine.events.off("fenced", onFenced);
    engine.events.off("started", onStarted);
    engine.events.off("settled", onSettled);
    engine.events.off("reclaimed", onSettled);
  };
}

function textRenderer(write: (text: string) => void): RunRenderer {
  return {
    started: (run, claim) => {
      const resumed = claim > run.attempt ? " (resumed)" : "";
      write(`▶ ${runName(run)} ${safe(run.id)} attempt ${run.attempt}/${run.maxAttempts}${resumed}\n`);
    },
    settled: (run) => {
      const took =
        run.startedAt !== null && run.finishedAt !== null ? ` in ${formatMillis(run.finishedAt - run.startedAt)}` : "";
      const id = safe(run.id);
      if (run.status === "succeeded") write(`✓ ${runName(run)} ${id} succeeded${took} → ${preview(run.result, 120)}\n`);
      else if (run.status === "failed") write(`✗ ${runName(run)} ${id} failed${took}: ${safe(run.error?.message)}\n`);
      else if (run.status === "cancelled") write(`⊘ ${runName(run)} ${id} cancelled${errorSuffix(run)}\n`);
      else if (run.status === "pending" && run.error) {
        write(
          `↻ ${runName(run)} ${id} attempt ${run.attempt - 1} failed (${safe(run.error.message)}); retry ${run.attempt}/${run.maxAttempts} at ${timeLabel(run.readyAt)}\n`,
        );
      }
    },
    fenced: (id) =>
      write(`⚠ lost the lease on run ${safe(id)}: another attempt owns it, so this attempt's writes were refused\n`),
  };
}

function jsonRenderer(write: (text: string) => void): RunRenderer {
  const about = (run: RunRecord) => ({ runId: run.id, workflow: run.workflow, attempt: run.attempt });
  return {
    started: (run) =>
      write(
        jsonLine({
          level: "info",
          msg: `${run.workflow} ${run.id} started`,
          event: "run.started",
          ...about(run),
          ...activeTraceIds(),
        }),
      ),
    settled: (run) => {
      const retrying = run.status === "pending" && run.error !== null;
      if (!retrying && !isTerminal(run.status)) return;
      const event = retrying ? "run.retrying" : `run.${run.status}`;
      const message = errorMessage(run);
      const msg = `${run.workflow} ${run.id} ${run.status}${message === null ? "" : `: ${message}`}`;
      write(
        jsonLine({
          level: run.status === "succeeded" ? "info" : "warn",
          msg,
          event,
          status: run.status,
          ...about(run),
        }),
      );
    },
    fenced: (id) =>
      write(jsonLine({ level: "warn", msg: `lost the lease on run ${id}`, event: "run.fenced", runId: id })),
  };
}
