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
 * What the uploads of a `data_upload` trigger add to its report. Uploads arrive through the API
 * on any server, not through the trigger's consumer, so they are counted apart (compare-and-swap
 * on one key, concurrent uploads included) and merged when the trigger is listed.
 */
export interface UploadTally {
  readonly count: number;
  readonly lastMessageAt: number;
  readonly lastMessage: string;
  readonly lastRunId: string;
}

/** Parses a stored {@link UploadTally} (null when missing or unreadable). */
export function decodeTally(text: string | null): UploadTally | null {
  if (text === null) return null;
  try {
    const t = JSON.parse(text) as UploadTally;
    return typeof t.count === "number" && typeof t.lastRunId === "string" ? t : null;
  } catch {
    return null;
  }
}

/** The tally after one more upload. */
export function countUpload(
  tally: UploadTally | null,
  upload: { at: number; message: string; runId: string },
): UploadTally {
  return {
    count: (tally?.count ?? 0) + 1,
    lastMessageAt: upload.at,
    lastMessage: upload.message,
    lastRunId: upload.runId,
  };
}

/** A report with the uploads counted: their number added, the newer last message kept. */
export function withUploads(report: TriggerReport | null, tally: UploadTally | null): TriggerReport | null {
  if (!tally) return report;
  const base: TriggerReport = report ?? { status: "stopped", holder: "", updatedAt: 0, messages: 0 };
  const newer = (base.lastMessageAt ?? 0) <= tally.lastMessageAt;
  return {
    ...base,
    messages: base.messages + tally.count,
    ...(newer && { lastMessageAt: tally.lastMessageAt, lastMessage: tally.lastMessage, lastRunId: tally.lastRunId }),
  };
}
