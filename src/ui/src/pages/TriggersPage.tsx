/**
 * Native triggers (MQTT, NATS, …): where each reads from, what it runs, its state, last message and error; pause and
 * resume. Below, the pipelines' schedule and webhook rows (`StepTriggers`).
 */
import { Link } from "wouter";
import type { ApiTrigger } from "../../../http/api-types";
import { seg } from "../api/client";
import { type Column, PausableTable } from "../components/PausableTable";
import { StepTriggers } from "../components/StepTriggers";
import { useTitle } from "../hooks";
import { relative, timestamp } from "../lib/format";

const CHIP: Record<ApiTrigger["status"], string> = {
  running: "chip-ok",
  starting: "chip-ok",
  paused: "chip-warn",
  error: "chip-err",
  stopped: "chip-warn",
};

const COLUMNS: ReadonlyArray<Column<ApiTrigger>> = [
  {
    header: "Trigger",
    className: "strong",
    cell: (t) => (
      <>
        {t.id} <span className="muted small">{t.kind}</span>
      </>
    ),
  },
  { header: "Source", cell: (t) => <code>{t.source}</code> },
  {
    header: "Runs",
    cell: (t) =>
      t.target.type === "pipeline" ? (
        <span>{t.target.name}</span>
      ) : (
        <Link href={`/workflows/${seg(t.target.name)}`}>{t.target.name}</Link>
      ),
  },
  { header: "State", cell: (t) => <span className={`chip ${CHIP[t.status]}`}>{t.status}</span> },
  { header: "Messages", className: "num", cell: (t) => t.messages },
  {
    header: "Last message",
    title: (t) => t.lastMessage ?? "",
    cell: (t, now) =>
      t.lastMessageAt ? (
        <>
          {relative(t.lastMessageAt, now)} {t.lastRunId ? <Link href={`/runs/${seg(t.lastRunId)}`}>run</Link> : null}
        </>
      ) : (
        <span className="muted">never</span>
      ),
  },
  {
    header: "Last error",
    className: "small",
    title: (t) => timestamp(t.lastErrorAt),
    cell: (t) => t.lastError ?? <span className="muted">—</span>,
  },
];

/** See the module comment. */
export function TriggersPage() {
  useTitle("Triggers");
  return (
    <PausableTable<ApiTrigger>
      title="Triggers"
      subtitle="Messages become runs; each is acknowledged only once its run is stored."
      path="/api/triggers"
      field="triggers"
      pollMs={5_000}
      empty={`No native triggers (MQTT, NATS, Kafka, uploads, sluice.json webhooks…). Add rows to sluice.json "triggers" or to a pipeline's pipeline.json.`}
      columns={COLUMNS}
      rowKey={(t) => t.id}
      rowAttr="trigger"
      paused={(t) => t.paused}
      actionPath={(t) => `/api/triggers/${seg(t.id)}`}
    >
      <StepTriggers />
    </PausableTable>
  );
}
