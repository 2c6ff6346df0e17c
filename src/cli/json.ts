/** The `--json` shapes of the CLI. Stable: scripts read them. */
import { decodeValue } from "../core/serde.js";
import type { LogRecord, RunRecord, StepRecord } from "../store/types.js";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A run as JSON. */
export function runJson(r: RunRecord) {
  return {
    id: r.id,
    workflow: r.workflow,
    task: r.task,
    status: r.status,
    attempt: r.attempt,
    maxAttempts: r.maxAttempts,
    payload: decodeValue(r.payload) ?? null,
    result: decodeValue(r.result) ?? null,
    error: r.error,
    parentId: r.parentId,
    version: r.version,
    createdAt: iso(r.createdAt),
    startedAt: iso(r.startedAt),
    finishedAt: iso(r.finishedAt),
    durationMs: r.startedAt !== null && r.finishedAt !== null ? r.finishedAt - r.startedAt : null,
  };
}

/** A step as JSON. */
export function stepJson(s: StepRecord) {
  return {
    key: s.key,
    kind: s.kind,
    target: s.target,
    status: s.status,
    value: decodeValue(s.value) ?? null,
    error: s.error,
    attempts: s.attempts,
    childId: s.childId,
    event: s.event,
    wakeAt: iso(s.wakeAt),
    startedAt: iso(s.startedAt),
    finishedAt: iso(s.finishedAt),
  };
}

/** A log line as JSON. */
export function logJson(l: LogRecord) {
  return { seq: l.seq, ts: iso(l.ts), attempt: l.attempt, level: l.level, step: l.stepKey, message: l.message };
}
