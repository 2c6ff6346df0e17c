import { parseParamSpec } from "../../core/params.js";
import type { SerializedError } from "../../core/serde.js";
import { toScheduleOwner } from "../schedule-sync.js";
import type { LogRecord, RunRecord, RunStatus, ScheduleRecord, StepKind, StepRecord, WorkflowInfo } from "../types.js";

/** A `runs` row as better-sqlite3 returns it. */
export interface RunRow {
  seq: number;
  id: string;
  workflow: string;
  task: string | null;
  queue: string;
  payload: string | null;
  status: string;
  priority: number;
  ready_at: number | null;
  attempt: number;
  max_attempts: number;
  backoff_base: number;
  backoff_max: number;
  claims: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  version: string | null;
  parent_id: string | null;
  parent_key: string | null;
  root_id: string;
  outstanding: number;
  options: string | null;
  result: string | null;
  error: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  updated_at: number;
  created_by: string | null;
  cache_key: string | null;
  concurrency_key: string | null;
  concurrency_limit: number | null;
  concurrency_window_ms: number | null;
}

/** A `steps` row. */
export interface StepRow {
  run_id: string;
  key: string;
  kind: string;
  target: string | null;
  status: string;
  value: string | null;
  error: string | null;
  child_id: string | null;
  event: string | null;
  wake_at: number | null;
  attempts: number;
  position: number;
  started_at: number;
  finished_at: number | null;
}

function parseError(text: string | null): SerializedError | null {
  return text === null ? null : (JSON.parse(text) as SerializedError);
}

/** Maps a `runs` row to a {@link RunRecord}. */
export function toRun(r: RunRow): RunRecord {
  return {
    id: r.id,
    seq: r.seq,
    workflow: r.workflow,
    task: r.task,
    queue: r.queue,
    payload: r.payload,
    status: r.status as RunStatus,
    priority: r.priority,
    readyAt: r.ready_at,
    attempt: r.attempt,
    maxAttempts: r.max_attempts,
    backoff: { base: r.backoff_base, max: r.backoff_max },
    version: r.version,
    parentId: r.parent_id,
    parentKey: r.parent_key,
    rootId: r.root_id,
    outstanding: r.outstanding,
    options: r.options,
    result: r.result,
    error: parseError(r.error),
    leaseOwner: r.lease_owner,
    leaseExpiresAt: r.lease_expires_at,
    createdBy: r.created_by,
    cacheKey: r.cache_key,
    concurrency:
      r.concurrency_key === null
        ? null
        : { key: r.concurrency_key, limit: r.concurrency_limit ?? 1, windowMs: r.concurrency_window_ms },
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    updatedAt: r.updated_at,
  };
}

/**
 * Maps a raw `runs` row (an array, from a statement of {@link Statements.raw} that selects
 * or returns `*`) to a {@link RunRecord}, `columns` giving each column's position. Builds the
 * record directly, as {@link toRun} would from the same row (no keyed row in between: a claim
 * of thousands maps as many rows).
 */
export function rawToRun(v: readonly unknown[], c: Readonly<Record<string, number>>): RunRecord {
  const concurrencyKey = v[c.concurrency_key!] as string | null;
  return {
    id: v[c.id!] as string,
    seq: v[c.seq!] as number,
    workflow: v[c.workflow!] as string,
    task: v[c.task!] as string | null,
    queue: v[c.queue!] as string,
    payload: v[c.payload!] as string | null,
    status: v[c.status!] as RunStatus,
    priority: v[c.priority!] as number,
    readyAt: v[c.ready_at!] as number | null,
    attempt: v[c.attempt!] as number,
    maxAttempts: v[c.max_attempts!] as number,
    backoff: { base: v[c.backoff_base!] as number, max: v[c.backoff_max!] as number },
    version: v[c.version!] as string | null,
    parentId: v[c.parent_id!] as string | null,
    parentKey: v[c.parent_key!] as string | null,
    rootId: v[c.root_id!] as string,
    outstanding: v[c.outstanding!] as number,
    options: v[c.options!] as string | null,
    result: v[c.result!] as string | null,
    error: parseError(v[c.error!] as string | null),
    leaseOwner: v[c.lease_owner!] as string | null,
    leaseExpiresAt: v[c.lease_expires_at!] as number | null,
    createdBy: v[c.created_by!] as string | null,
    cacheKey: v[c.cache_key!] as string | null,
    concurrency:
      concurrencyKey === null
        ? null
        : {
            key: concurrencyKey,
            limit: (v[c.concurrency_limit!] as number | null) ?? 1,
            windowMs: v[c.concurrency_window_ms!] as number | null,
          },
    createdAt: v[c.created_at!] as number,
    startedAt: v[c.started_at!] as number | null,
    finishedAt: v[c.finished_at!] as number | null,
    updatedAt: v[c.updated_at!] as number,
  };
}

/** Maps a `steps` row to a {@link StepRecord}. */
export function toStep(r: StepRow): StepRecord {
  return {
    runId: r.run_id,
    key: r.key,
    kind: r.kind as StepKind,
    target: r.target,
    status: r.status as StepRecord["status"],
    value: r.value,
    error: parseError(r.error),
    childId: r.child_id,
    event: r.event,
    wakeAt: r.wake_at,
    attempts: r.attempts,
    position: r.position,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  };
}

/** Maps a `logs` row. */
export function toLog(r: {
  seq: number;
  run_id: string;
  step_key: string | null;
  attempt: number;
  level: string;
  message: string;
  ts: number;
}): LogRecord {
  return {
    seq: r.seq,
    runId: r.run_id,
    stepKey: r.step_key,
    attempt: r.attempt,
    level: r.level as LogRecord["level"],
    message: r.message,
    ts: r.ts,
  };
}

/** Maps a `workflows` row. */
export function toWorkflow(r: {
  name: string;
  version: string | null;
  queue: string;
  max_attempts: number;
  backoff_base: number;
  backoff_max: number;
  source: string | null;
  schedule: string | null;
  /** 0/1 on SQLite, a boolean on Postgres. */
  local?: number | boolean | null;
  params?: string | null;
  removed_at?: number | string | null;
}): WorkflowInfo {
  return {
    name: r.name,
    version: r.version,
    queue: r.queue,
    maxAttempts: r.max_attempts,
    backoff: { base: r.backoff_base, max: r.backoff_max },
    source: r.source,
    schedule: r.schedule === null ? null : (JSON.parse(r.schedule) as WorkflowInfo["schedule"]),
    local: Boolean(r.local),
    params: parseParamSpec(r.params ?? null),
    removedAt: r.removed_at === null || r.removed_at === undefined ? null : Number(r.removed_at),
  };
}

/** Maps a `schedules` row. */
export function toSchedule(r: {
  workflow: string;
  cron: string;
  timezone: string;
  next_at: number | null;
  paused: number;
  last_fired_at: number | null;
  owner: string;
}): ScheduleRecord {
  return {
    workflow: r.workflow,
    cron: r.cron,
    timezone: r.timezone,
    nextAt: r.next_at,
    paused: r.paused !== 0,
    lastFiredAt: r.last_fired_at,
    owner: toScheduleOwner(r.owner),
  };
}
