/**
 * Who or what started a run, for the "Started by" column and fact: the person (`createdBy`), else
 * what Sluice started it for — the cascade (naming the upstream script, linked to its run), a
 * join or debounce, a schedule (a `cron:` id), a trigger's message (a `trigger:` id, or a
 * pipeline run's `_sluice.trigger` kind), a webhook, a plan or backfill, a freshness check, or
 * its parent run. Reads stored payloads defensively: an unexpected shape gives "—". Pure.
 */
import type { ApiRun } from "../../../http/api-types";

/** A "Started by" label, with the run it links to when another run started it. */
export interface StartedBy {
  label: string;
  /** A run id to link to (the upstream run of a cascade, the parent of a child run). */
  run?: string;
  /** Set when a person started the run (shown plainly; the others are muted). */
  person?: true;
}

const KIND_LABELS: Record<string, string> = {
  debounce: "debounce",
  join: "join (trigger all)",
  schedule: "schedule",
  webhook: "webhook",
  freshness: "freshness check",
  plan: "pipeline run",
  mqtt: "MQTT trigger",
  nats: "NATS trigger",
  postgres: "Postgres trigger",
  data_upload: "upload trigger",
  email: "email trigger",
  kafka: "Kafka trigger",
  sqs: "SQS trigger",
  gcp: "Pub/Sub trigger",
};

function metaOf(payload: unknown): Record<string, unknown> | null {
  if (!payload || typeof payload !== "object" || Array.isArray(payload)) return null;
  const meta = (payload as Record<string, unknown>)._sluice;
  return meta && typeof meta === "object" && !Array.isArray(meta) ? (meta as Record<string, unknown>) : null;
}

/** See the module comment. */
export function startedBy(run: Pick<ApiRun, "id" | "createdBy" | "payload" | "parentId">): StartedBy {
  if (run.createdBy) return { label: run.createdBy, person: true };
  const meta = metaOf(run.payload);
  const trigger = typeof meta?.trigger === "string" ? meta.trigger : null;
  if (trigger === "cascade") {
    const up = meta?.upstream as { run?: unknown; script?: unknown } | undefined;
    const script = typeof up?.script === "string" ? up.script.split("/").pop() : null;
    return {
      label: script ? `cascade from ${script}` : "cascade",
      ...(typeof up?.run === "string" && { run: up.run }),
    };
  }
  if (trigger && KIND_LABELS[trigger]) return { label: KIND_LABELS[trigger]! };
  if (run.id.startsWith("cron:")) return { label: "schedule" };
  if (run.id.startsWith("trigger:")) return { label: "trigger" };
  if (run.parentId) return { label: "parent run", run: run.parentId };
  return { label: "—" };
}
