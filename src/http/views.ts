/** Converts stored records into the API's JSON shapes (`api-types.ts`). */
import { normaliseForm } from "../core/approval-form.js";
import { decodeValue, type SerializedError } from "../core/serde.js";
import { isoOrNull } from "../core/time.js";
import { traceIdOfOptions, traceUrl } from "../core/trace-id.js";
import type { PendingApproval } from "../engine/approvals.js";
import type { ReleaseRecord, ReleaseSummary } from "../core/release.js";
import { scopeAllows } from "./auth/scopes.js";
import type { Identity } from "./auth/identity.js";
import type { ApprovalEvent, LogRecord, RunRecord, ScheduleRecord, StepRecord, WorkflowInfo } from "../store/types.js";
import type {
  ApiApprovalEvent,
  ApiLogLine,
  ApiPendingApproval,
  ApiRelease,
  ApiReleaseSummary,
  ApiRun,
  ApiSchedule,
  ApiStep,
  ApiTraceLink,
  ApiWorkflow,
} from "./api-types.js";

/**
 * Epoch ms → ISO string (null stays null). A stored value that is not a date (written
 * by an older version or by hand) becomes null rather than failing the whole answer.
 */
export function iso(ms: number): string;
export function iso(ms: number | null): string | null;
export function iso(ms: number | null): string | null {
  return isoOrNull(ms);
}

/**
 * How much of a run's error a caller sees: `full` (with stack traces, which name the server's
 * files) for callers who may operate runs, `redacted` (name, code, message, data and causes,
 * no stacks) for read-only tokens.
 */
export type ErrorDetail = "full" | "redacted";

/** The {@link ErrorDetail} for a caller: stacks need the `operate` scope. */
export function errorDetailFor(identity: Identity | null): ErrorDetail {
  return identity && scopeAllows(identity.scope, "operate") ? "full" : "redacted";
}

/** A stored error as the caller may see it (see {@link ErrorDetail}); causes are redacted too. */
function errorView(e: SerializedError | null, detail: ErrorDetail): SerializedError | null {
  if (e === null || detail === "full") return e;
  const { stack: _stack, cause, ...rest } = e;
  return cause ? { ...rest, cause: errorView(cause, detail)! } : rest;
}

/** A run as JSON, its error at `detail`. */
export function runView(r: RunRecord, detail: ErrorDetail): ApiRun {
  return {
    id: r.id,
    seq: r.seq,
    workflow: r.workflow,
    task: r.task,
    name: r.task ? `${r.workflow}:${r.task}` : r.workflow,
    status: r.status,
    queue: r.queue,
    priority: r.priority,
    attempt: r.attempt,
    maxAttempts: r.maxAttempts,
    payload: decodeValue(r.payload) ?? null,
    result: decodeValue(r.result) ?? null,
    error: errorView(r.error, detail),
    parentId: r.parentId,
    parentKey: r.parentKey,
    rootId: r.rootId,
    createdBy: r.createdBy,
    version: r.version,
    outstanding: r.outstanding,
    createdAt: iso(r.createdAt),
    readyAt: iso(r.readyAt),
    startedAt: iso(r.startedAt),
    finishedAt: iso(r.finishedAt),
    updatedAt: iso(r.updatedAt),
    durationMs: r.startedAt !== null && r.finishedAt !== null ? r.finishedAt - r.startedAt : null,
    traceId: traceIdOfOptions(r.options),
  };
}

/** The trace of a run with stored `options`, linked through `template` (`SLUICE_TRACE_URL`), or null. */
export function traceLinkView(options: string | null, template: string | null): ApiTraceLink | null {
  const id = traceIdOfOptions(options);
  return id === null ? null : { id, url: traceUrl(template, id) };
}

/** A checkpoint as JSON, its error at `detail`. */
export function stepView(s: StepRecord, detail: ErrorDetail): ApiStep {
  return {
    key: s.key,
    kind: s.kind,
    target: s.target,
    status: s.status,
    value: decodeValue(s.value) ?? null,
    error: errorView(s.error, detail),
    attempts: s.attempts,
    childId: s.childId,
    event: s.event,
    wakeAt: iso(s.wakeAt),
    position: s.position,
    startedAt: iso(s.startedAt),
    finishedAt: iso(s.finishedAt),
  };
}

/** A pending approval as JSON, its form normalised. */
export function pendingApprovalView(p: PendingApproval): ApiPendingApproval {
  return {
    key: p.key,
    form: normaliseForm(p.form),
    selfApproval: p.selfApproval,
    timeoutSeconds: p.timeout,
    deadline: iso(p.deadline),
  };
}

/** An approval attempt as JSON. */
export function approvalEventView(e: ApprovalEvent): ApiApprovalEvent {
  return { key: e.stepKey, actor: e.actor, decision: e.decision, outcome: e.outcome, via: e.via, at: iso(e.ts) };
}

/** A log line as JSON. */
export function logView(l: LogRecord): ApiLogLine {
  return {
    seq: l.seq,
    ts: iso(l.ts),
    runId: l.runId,
    attempt: l.attempt,
    level: l.level,
    step: l.stepKey,
    message: l.message,
  };
}

/** A workflow as JSON. */
export function workflowView(w: WorkflowInfo): ApiWorkflow {
  return {
    name: w.name,
    version: w.version,
    queue: w.queue,
    maxAttempts: w.maxAttempts,
    source: w.source,
    schedule: w.schedule,
    params: w.params ? { names: [...w.params.names], required: [...w.params.required] } : null,
  };
}

/** A schedule as JSON, with its next fire times. */
export function scheduleView(s: ScheduleRecord, upcoming: number[]): ApiSchedule {
  return {
    workflow: s.workflow,
    cron: s.cron,
    timezone: s.timezone,
    paused: s.paused,
    nextAt: iso(s.nextAt),
    upcoming: s.paused ? [] : upcoming.map((t) => iso(t)),
    lastFiredAt: iso(s.lastFiredAt),
    owner: s.owner,
  };
}

/** A release (with or without its manifest) as JSON: its time in ISO 8601. */
export function releaseView(r: ReleaseRecord): ApiRelease;
export function releaseView(r: ReleaseSummary): ApiReleaseSummary;
export function releaseView(r: ReleaseSummary | ReleaseRecord): ApiReleaseSummary | ApiRelease {
  return { ...r, createdAt: iso(r.createdAt) };
}
