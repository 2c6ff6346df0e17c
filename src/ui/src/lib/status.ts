/** Run and step statuses for display: labels, and the CSS class that colours them. */
import { aliasesOf, resolveStatusName, TERMINAL_STATUSES } from "../../../core/run-status";
import type { ApiRunStatus } from "../../../http/api-types";

/** Every display status: run statuses plus diagram/timeline states. */
export type DisplayStatus = ApiRunStatus | "sleeping" | "skipped" | "idle";

/** Statuses a run never leaves (`core/run-status.ts`). */
const FINISHED: readonly ApiRunStatus[] = TERMINAL_STATUSES;

/** True when the run is done. */
export const isFinished = (s: ApiRunStatus) => FINISHED.includes(s);

/** Every run status, in the order filters list them. */
export const RUN_STATUSES: readonly ApiRunStatus[] = [
  "running",
  "waiting",
  "pending",
  "succeeded",
  "failed",
  "cancelled",
];

const LABELS: Record<DisplayStatus, string> = {
  pending: "Queued",
  running: "Running",
  waiting: "Waiting",
  succeeded: "Succeeded",
  failed: "Failed",
  cancelled: "Cancelled",
  sleeping: "Sleeping",
  skipped: "Not run",
  idle: "Not reached",
};

/** People's word for a status. */
export const statusLabel = (s: DisplayStatus) => LABELS[s];

/** Tako's names for a run status (`failed` → `["dead"]`), shown beside the filter. */
export const statusAliases = (s: ApiRunStatus): string[] => aliasesOf(s);

/** The run status a `?status=` value selects: a status, or Tako's name for one (`dead`); null otherwise. */
export const selectedStatus = (value: string | null): ApiRunStatus | null => (value ? resolveStatusName(value) : null);
