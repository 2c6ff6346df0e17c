/** Cron schedules: next fire times, last fire, who keeps them, pause and resume. */
import { Link } from "wouter";
import type { ApiSchedule } from "../../../http/api-types";
import { seg } from "../api/client";
import { type Column, PausableTable } from "../components/PausableTable";
import { useTitle } from "../hooks";
import { relative, timestamp, zonedClock, zonedTimestamp } from "../lib/format";

const COLUMNS: ReadonlyArray<Column<ApiSchedule>> = [
  {
    header: "Workflow",
    className: "strong",
    cell: (s) => <Link href={`/workflows/${seg(s.workflow)}`}>{s.workflow}</Link>,
  },
  {
    header: "Cron",
    cell: (s) => (
      <>
        <code>{s.cron}</code> <span className="muted small">{s.timezone}</span>
      </>
    ),
  },
  {
    header: "Next fire",
    title: (s) => (s.nextAt ? `${timestamp(s.nextAt)} in your time zone` : ""),
    cell: (s, now) =>
      s.paused ? (
        <span className="muted">paused</span>
      ) : (
        `${relative(s.nextAt, now)} · ${zonedTimestamp(s.nextAt, s.timezone)}`
      ),
  },
  {
    header: "Then",
    className: "muted small",
    cell: (s) => {
      const then = s.upcoming.slice(1, 4);
      return then.length ? `${then.map((t) => zonedClock(t, s.timezone)).join(", ")} ${s.timezone || "UTC"}` : "—";
    },
  },
  {
    header: "Last fired",
    title: (s) => timestamp(s.lastFiredAt),
    cell: (s, now) => (s.lastFiredAt ? relative(s.lastFiredAt, now) : <span className="muted">never</span>),
  },
  {
    header: "State",
    cell: (s) =>
      s.paused ? <span className="chip chip-warn">Paused</span> : <span className="chip chip-ok">Active</span>,
  },
  {
    header: "Kept by",
    className: "muted small",
    title: (s) =>
      s.owner === "release"
        ? "published by sluice deploy: the next deploy replaces it"
        : "registered by a running process or its external workers",
    cell: (s) => (s.owner === "release" ? "release" : "process"),
  },
];

/** See the module comment. */
export function SchedulesPage() {
  useTitle("Schedules");
  return (
    <PausableTable<ApiSchedule>
      title="Schedules"
      subtitle="Cron schedules fire once per tick, across all servers."
      path="/api/schedules"
      field="schedules"
      pollMs={15_000}
      empty={`No schedules. Give a workflow a schedule, e.g. schedule: "0 9 * * 1-5".`}
      columns={COLUMNS}
      rowKey={(s) => s.workflow}
      rowAttr="schedule"
      paused={(s) => s.paused}
      actionPath={(s) => `/api/schedules/${seg(s.workflow)}`}
    />
  );
}
