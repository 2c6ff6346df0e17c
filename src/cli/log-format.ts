/**
 * `--log-format text|json` of `sluice dev`, `sluice worker` and `sluice server`. `json`
 * writes one JSON object per line on standard output, for log collectors (Loki,
 * Elasticsearch, CloudWatch): `{"ts", "level", "msg"}` always, and `event`, `runId`,
 * `workflow`, `attempt`, `stepKey`, `status` where the line is about a run, and `trace_id`,
 * `span_id` when it was written inside a traced claim or step (`worker/tracing.ts`). Plain
 * messages (startup, reloads) become `{"ts", "level": "info", "msg"}`.
 */
import { InvalidInputError } from "../core/errors.js";

/** How live output is written. */
export type LogFormat = "text" | "json";

/** The commander option of the three commands. */
export const LOG_FORMAT_OPTION = [
  "--log-format <format>",
  "text (for people) or json (one JSON object per line with run and step ids, for log collectors)",
  "text",
] as const;

/**
 * Checks `--log-format`.
 * @throws InvalidInputError (code INVALID_LOG_FORMAT)
 */
export function parseLogFormat(value: unknown): LogFormat {
  if (value === "text" || value === "json") return value;
  throw new InvalidInputError(`--log-format ${JSON.stringify(value)} is not a format: use text or json`, {
    code: "INVALID_LOG_FORMAT",
  });
}

/** One line of JSON output. */
export interface LogEvent {
  level: "debug" | "info" | "warn" | "error";
  msg: string;
  /** What happened: `log` (a line a run printed), `run.started`, `run.succeeded`, `run.failed`, … */
  event?: string;
  runId?: string;
  workflow?: string;
  attempt?: number;
  stepKey?: string | null;
  status?: string;
  /** The W3C trace id (32 hex) of the span active when the line was written. */
  trace_id?: string;
  /** The span id (16 hex) of that span. */
  span_id?: string;
}

/** Renders `event` as one JSON line, time first (`ts`: ISO 8601 of `at`, default now). */
export function jsonLine(event: LogEvent, at: number = Date.now()): string {
  return `${JSON.stringify({ ts: new Date(at).toISOString(), ...event })}\n`;
}

/** Wraps a text writer for `json`: each non-empty line written becomes one `{"ts", "level": "info", "msg"}` line. */
export function jsonMessages(write: (text: string) => void): (text: string) => void {
  return (text) => {
    for (const line of text.split("\n")) if (line.trim() !== "") write(jsonLine({ level: "info", msg: line }));
  };
}
