/**
 * The persisted state of a trigger (pure encoding; kept in the store's key-value table, no
 * migration): whether it is paused (set by `sluice triggers pause`, the API or the UI) and
 * what its consumer last reported: status, holder, messages, last message, last error.
 */

/** What a trigger is doing, as its consumer last reported (or `paused`). */
export type TriggerStatus = "starting" | "running" | "paused" | "error" | "stopped";

/** The consumer's report, rewritten by the server that consumes the trigger. */
export interface TriggerReport {
  readonly status: TriggerStatus;
  /** The server (process) consuming it. */
  readonly holder: string;
  /** When this report was written (epoch ms); a stale report means nobody consumes it. */
  readonly updatedAt: number;
  /** Deliveries turned into runs (new or deduplicated: a redelivered message counts again) since the trigger was first consumed. */
  readonly messages: number;
  readonly lastMessageAt?: number;
  /** The last message's envelope, shortened. */
  readonly lastMessage?: string;
  readonly lastRunId?: string;
  readonly lastError?: string;
  readonly lastErrorAt?: number;
}

/** Key of a trigger's pause flag. */
export function pausedKey(id: string): string {
  return `trigger:paused:${id}`;
}

/** Key of a trigger's report. */
export function reportKey(id: string): string {
  return `trigger:report:${id}`;
}

/** Longest last message kept in a report. */
const LAST_MESSAGE_CHARS = 1000;

/** Shortens a message for the report. */
export function shorten(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > LAST_MESSAGE_CHARS ? `${text.slice(0, LAST_MESSAGE_CHARS)}…` : text;
}

/** Parses a stored report (null for a missing or unreadable one). */
export function decodeReport(text: string | null): TriggerReport | null {
  if (text === null) return null;
  try {
    const r = JSON.parse(text) as TriggerReport;
    return typeof r === "object" && r !== null && typeof r.status === "string" ? r : null;
  } catch {
    return null;
  }
}

/**
 * The status to show: `paused` when the flag is set, `stopped` when no report is newer than
 * `staleMs` (no server consumes it), else the consumer's own.
 */
export function shownStatus(
  paused: boolean,
  report: TriggerReport | null,
  now: number,
  staleMs: number,
): TriggerStatus {
  if (paused) return "paused";
  if (!report || now - report.updatedAt > staleMs) return "stopped";
  return report.status;
}

/**
 * What the calls of a `data_upload` or `webhook` trigger add to its report. They arrive through
 * the API on any server, not through the trigger's consumer, so they are counted apart
 * (compare-and-swap on one key, concurrent calls included) and merged when the trigger is listed.
 * A call refused for its content (a body that does not map) is kept as the last error.
 */
export interface UploadTally {
  readonly count: number;
  readonly lastMessageAt?: number;
  readonly lastMessage?: string;
  readonly lastRunId?: string;
  readonly lastError?: string;
  readonly lastErrorAt?: number;
}

/** Parses a stored {@link UploadTally} (null when missing or unreadable). */
export function decodeTally(text: string | null): UploadTally | null {
  if (text === null) return null;
  try {
    const t = JSON.parse(text) as UploadTally;
    return typeof t === "object" && t !== null && typeof t.count === "number" ? t : null;
  } catch {
    return null;
  }
}

/** The tally after one more accepted call. */
export function countUpload(
  tally: UploadTally | null,
  upload: { at: number; message: string; runId: string },
): UploadTally {
  return {
    ...tally,
    count: (tally?.count ?? 0) + 1,
    lastMessageAt: upload.at,
    lastMessage: upload.message,
    lastRunId: upload.runId,
  };
}

/** The tally after a refused call (its reason becomes the last error; nothing is counted). */
export function failUpload(tally: UploadTally | null, failure: { at: number; error: string }): UploadTally {
  return { ...tally, count: tally?.count ?? 0, lastError: failure.error, lastErrorAt: failure.at };
}

/** A report with the calls counted: their number added, the newer last message and last error kept. */
export function withUploads(report: TriggerReport | null, tally: UploadTally | null): TriggerReport | null {
  if (!tally) return report;
  const base: TriggerReport = report ?? { status: "stopped", holder: "", updatedAt: 0, messages: 0 };
  const newer = tally.lastMessageAt !== undefined && (base.lastMessageAt ?? 0) <= tally.lastMessageAt;
  const newerError = tally.lastErrorAt !== undefined && (base.lastErrorAt ?? 0) <= tally.lastErrorAt;
  return {
    ...base,
    messages: base.messages + tally.count,
    ...(newer && { lastMessageAt: tally.lastMessageAt, lastMessage: tally.lastMessage, lastRunId: tally.lastRunId }),
    ...(newerError && { lastError: tally.lastError, lastErrorAt: tally.lastErrorAt }),
  };
}
