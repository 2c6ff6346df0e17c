/** A run or step status as a coloured pill (running ones pulse). */
import { type DisplayStatus, statusLabel } from "../lib/status";

/** See the module comment. */
export function StatusBadge({ status, small }: { status: DisplayStatus; small?: boolean }) {
  return (
    <span className={`badge st-${status}${small ? " badge-sm" : ""}`} data-status={status}>
      {statusLabel(status)}
    </span>
  );
}
