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

/** A line a process prints under `json` that is already a JSON object is passed on as it is. */
function isJsonObjectLine(line: string): boolean {
  if (!line.startsWith("{")) return false;
  try {
    const value = JSON.parse(line) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * Wraps a writer of one output stream so that every line it writes is a JSON object: lines that
 * are one already pass unchanged, any other non-empty line becomes `{"ts", "level", "msg"}`
 * (`level`: `info` on standard output; on standard error `error` for the CLI's last word,
 * `sluice: …` or `error: …`, else `warn`). A line written in pieces is held until its end;
 * `flush` writes what is held.
 */
export function jsonOnlyWriter(
  write: (text: string) => void,
  stream: "stdout" | "stderr",
): { write: (text: string) => void; flush: () => void } {
  let held = "";
  const render = (line: string) => {
    if (line.trim() === "") return "";
    if (isJsonObjectLine(line)) return `${line}\n`;
    const level = stream === "stdout" ? "info" : /^(sluice|error): /.test(line) ? "error" : "warn";
    return jsonLine({ level, msg: line });
  };
  return {
    write: (text) => {
      const lines = (held + text).split("\n");
      held = lines.pop()!;
      const out = lines.map(render).join("");
      if (out !== "") write(out);
    },
    flush: () => {
      const out = render(held);
      held = "";
      if (out !== "") write(out);
    },
  };
}
