/**
 * The run's timeline: a Gantt chart of the run, its steps and its child runs, with
 * durations and retries. Rows are buttons: choosing one shows its logs.
 */
import type { Timeline as TimelineData, TimelineRow } from "../lib/timeline";
import { ticks } from "../lib/timeline";
import { duration } from "../lib/format";
import { statusLabel } from "../lib/status";

const KIND_LABEL: Record<TimelineRow["kind"], string> = {
  run: "run",
  step: "step",
  sleep: "sleep",
  wait: "wait",
  task: "task",
  approval: "approval",
  asset: "asset",
};

/** See the module comment. */
export function Timeline({
  data,
  selected,
  onSelect,
}: {
  data: TimelineData;
  selected: string | null;
  onSelect(row: TimelineRow): void;
}) {
  const span = data.end - data.start;
  const pct = (ms: number) => `${Math.max(0, Math.min(100, ((ms - data.start) / span) * 100))}%`;
  const width = (a: number, b: number) => `max(3px, ${Math.max(0, ((b - a) / span) * 100)}%)`;
  const marks = ticks(span);
  return (
    <div className="timeline" role="list" aria-label="Timeline">
      <div className="tl-axis" aria-hidden="true">
        <div className="tl-label" />
        <div className="tl-track">
          {marks.map((m) => (
            <span key={m} className="tl-tick" style={{ left: `${(m / span) * 100}%` }}>
              {duration(m)}
            </span>
          ))}
        </div>
        <div className="tl-dur" />
      </div>
      {data.rows.map((row) => {
        const running = row.queuedUntil !== null ? Math.max(row.queuedUntil, row.start) : row.start;
        return (
          <button
            type="button"
            role="listitem"
            key={row.id}
            className={`tl-row${selected === row.id ? " selected" : ""}${row.kind === "run" ? " tl-run" : ""}`}
            onClick={() => onSelect(row)}
            data-row={row.id}
            data-status={row.status}
            aria-label={`${row.label}: ${statusLabel(row.status)}, ${duration(row.durationMs)}`}
          >
            <div className="tl-label">
              <span className={`kind kind-${row.kind}`}>{KIND_LABEL[row.kind]}</span>
              <span className="tl-name" title={row.label}>
                {row.label}
              </span>
              {row.attempts > 1 ? (
                <span className="chip chip-warn">
                  {row.kind === "task" || row.kind === "run" ? `attempt ${row.attempts}` : `${row.attempts} tries`}
                </span>
              ) : null}
            </div>
            <div className="tl-track">
              {marks.map((m) => (
                <span key={m} className="tl-grid" style={{ left: `${(m / span) * 100}%` }} />
              ))}
              {row.queuedUntil !== null && running > row.start ? (
                <span className="tl-bar tl-queued" style={{ left: pct(row.start), width: width(row.start, running) }} />
              ) : null}
              <span
                className={`tl-bar st-${row.status}${row.open ? " tl-open" : ""}`}
                style={{ left: pct(running), width: width(running, row.end) }}
              />
            </div>
            <div className="tl-dur mono">{duration(row.durationMs)}</div>
          </button>
        );
      })}
    </div>
  );
}
