/**
 * The worker protocol's request bodies (docs/PROTOCOL.md), parsed into store verbs'
 * inputs. Pure: every failure is an {@link InvalidInputError} naming the field.
 */
import { RUN_BACKOFF, type BackoffPolicy } from "../../core/backoff.js";
import { parseSchedule, type ScheduleInput } from "../../core/cron.js";
import { encodeValue, type SerializedError } from "../../core/serde.js";
import { InvalidInputError } from "../../sdk/errors.js";
import type { ConcurrencyLimit, Lease, StepWrite, WorkflowInfo } from "../../store/types.js";
import { bodyObject, onlyFields, optInt, optString, reqString } from "../input.js";

const bad = (message: string) => new InvalidInputError(message, { code: "INVALID_BODY" });

/** A worker's code version: a build or commit id. */
const VERSION_RE = /^[A-Za-z0-9._+-]{1,128}$/;

/** Longest a claim may wait for work (ms). */
const MAX_CLAIM_WAIT_MS = 60_000;

/** A parsed `POST /api/worker/claim`. */
export interface ClaimMessage {
  workerId: string;
  workflows: string[];
  groups: string[] | undefined;
  limit: number;
  leaseMs: number;
  waitMs: number;
  /** The code version this worker runs: only runs unpinned or pinned to it (absent: any). */
  version?: string;
}

/** Parses the body of `POST /api/worker/workflows`: the workflows a worker serves. */
export function parseRegister(raw: unknown): WorkflowInfo[] {
  const body = bodyObject(raw, '{"workflows": [{"name": "fulfill-order", "maxAttempts": 5}]}');
  onlyFields(body, ["workflows"]);
  if (!Array.isArray(body.workflows) || body.workflows.length === 0)
    throw bad('"workflows" must be a non-empty array of {name, group?, maxAttempts?, backoff?, schedule?, version?}');
  return body.workflows.map((w, i) => {
    const o = bodyObject(w, '{"name": "fulfill-order"}');
    onlyFields(o, ["name", "group", "maxAttempts", "backoff", "schedule", "version"]);
    const name = reqString(o, "name", '"fulfill-order"');
    const version = optString(o, "version") || null;
    if (version !== null && !VERSION_RE.test(version))
      throw bad(
        `"workflows[${i}].version" must be 1 to 128 letters, digits and . _ - + (a build or commit id, e.g. "v1.4.2"), got ${JSON.stringify(version)}`,
      );
    const backoff = parseBackoff(o.backoff, `workflows[${i}].backoff`);
    const schedule =
      o.schedule === undefined || o.schedule === null ? null : parseSchedule(o.schedule as ScheduleInput);
    return {
      name,
      version,
      queue: optString(o, "group") || "default",
      maxAttempts: optInt(o, "maxAttempts", 1, 1001) ?? 3,
      backoff,
      source: null,
      schedule,
    };
  });
}

function parseBackoff(raw: unknown, field: string): BackoffPolicy {
  if (raw === undefined || raw === null) return RUN_BACKOFF;
  const o = bodyObject(raw, '{"base": 1000, "max": 3600000}');
  onlyFields(o, ["base", "max"]);
  const base = optInt(o, "base", 0, 86_400_000) ?? RUN_BACKOFF.base;
  const max = optInt(o, "max", 0, 86_400_000 * 30) ?? RUN_BACKOFF.max;
  if (max < base) throw bad(`"${field}.max" must be at least its base`);
  return { base, max };
}

/** Parses `POST /api/worker/claim`. */
export function parseClaim(raw: unknown): ClaimMessage {
  const body = bodyObject(raw, '{"workerId": "w1", "workflows": ["fulfill-order"], "waitMs": 30000}');
  onlyFields(body, ["workerId", "workflows", "groups", "limit", "leaseMs", "waitMs", "version"]);
  const version = optString(body, "version") || undefined;
  if (version !== undefined && !VERSION_RE.test(version))
    throw bad(
      `"version" must be 1 to 128 letters, digits and . _ - + (the version you registered), got ${JSON.stringify(version)}`,
    );
  const workerId = reqString(body, "workerId", '"host:1234"');
  const workflows = stringList(body.workflows, "workflows", true)!;
  return {
    workerId,
    workflows,
    groups: stringList(body.groups, "groups", false),
    limit: optInt(body, "limit", 1, 500) ?? 1,
    leaseMs: optInt(body, "leaseMs", 1_000, 600_000) ?? 30_000,
    waitMs: optInt(body, "waitMs", 0, MAX_CLAIM_WAIT_MS) ?? 0,
    ...(version === undefined ? {} : { version }),
  };
}

function stringList(v: unknown, field: string, required: boolean): string[] | undefined {
  if (v === undefined || v === null) {
    if (required) throw bad(`"${field}" is required: a non-empty array of names`);
    return undefined;
  }
  if (!Array.isArray(v) || v.length === 0 || v.some((x) => typeof x !== "string" || x === ""))
    throw bad(`"${field}" must be a non-empty array of names`);
  return v as string[];
}

/** The lease a write names: `{ token }` in the body, the run in the path. */
export function parseLease(runId: string, body: Record<string, unknown>): Lease {
  const token = body.token;
  if (typeof token !== "number" || !Number.isSafeInteger(token) || token < 1)
    throw bad('"token" is required: the fencing token of your claim (a whole number)');
  return { runId, token };
}

const STEP_KINDS = ["step", "sleep", "wait", "approval"] as const;
const STEP_STATUSES = ["done", "pending"] as const;

/** Parses checkpoints to write (`steps` of a checkpoint or a park). Values are JSON values, encoded here. */
export function parseSteps(raw: unknown, maxValueBytes: number): StepWrite[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw bad('"steps" must be an array of {key, kind, status, position, ...}');
  return raw.map((s, i) => {
    const o = bodyObject(
      s,
      '{"key": "charge", "kind": "step", "status": "done", "position": 0, "value": {"ok": true}}',
    );
    onlyFields(o, ["key", "kind", "status", "position", "value", "event", "wakeAfterMs", "attempts", "startedAt"]);
    const key = reqString(o, "key", '"charge"');
    const kind = oneOf(o.kind, STEP_KINDS, `steps[${i}].kind`);
    const status = oneOf(o.status, STEP_STATUSES, `steps[${i}].status`);
    const position = optInt(o, "position", 0, 1_000_000_000);
    if (position === undefined)
      throw bad(`"steps[${i}].position" is required: the call's index in the execution, from 0`);
    if (kind === "approval" && status === "pending") checkApprovalRequest(o.value, `steps[${i}].value`);
    return {
      key,
      kind,
      target: null,
      status,
      value: encodeValue(o.value, `value of step "${key}"`, maxValueBytes),
      event: kind === "wait" ? (optString(o, "event") ?? key.replace(/#\d+$/, "")) : null,
      wakeAfterMs: optInt(o, "wakeAfterMs", 0, Number.MAX_SAFE_INTEGER) ?? null,
      attempts: optInt(o, "attempts", 0, 1_000_000),
      position,
      startedAt: optInt(o, "startedAt", 0, Number.MAX_SAFE_INTEGER),
    };
  });
}

/**
 * A pending approval's value is what it asks for, read by the UI, `sluice approve` and resume
 * links: `{ form?, selfApproval?, timeout }` (timeout in seconds, shown with the approval).
 */
function checkApprovalRequest(raw: unknown, field: string): void {
  const example = '{"form": null, "selfApproval": true, "timeout": 1800}';
  const o = bodyObject(raw, example);
  onlyFields(o, ["form", "selfApproval", "timeout"]);
  if (o.form !== undefined && o.form !== null && (typeof o.form !== "object" || Array.isArray(o.form)))
    throw bad(`"${field}.form" must be an object (fields, or a JSON schema), or null`);
  if (o.selfApproval !== undefined && typeof o.selfApproval !== "boolean")
    throw bad(`"${field}.selfApproval" must be true or false`);
  if (typeof o.timeout !== "number" || !(o.timeout > 0))
    throw bad(`"${field}.timeout" is required: the approval's timeout in seconds (> 0), e.g. ${example}`);
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], field: string): T {
  if (typeof v === "string" && (allowed as readonly string[]).includes(v)) return v as T;
  throw bad(`"${field}" must be one of ${allowed.join(", ")}`);
}

/** An error reported by a worker: `{ message, name?, code? }`. */
function parseWorkerError(raw: unknown): SerializedError {
  const o = bodyObject(raw ?? {}, '{"message": "card declined", "code": "DECLINED"}');
  onlyFields(o, ["message", "name", "code", "stack"]);
  return {
    name: optString(o, "name") || "Error",
    message: optString(o, "message") ?? "",
    ...(optString(o, "code") ? { code: optString(o, "code") } : {}),
    ...(optString(o, "stack") ? { stack: optString(o, "stack") } : {}),
  };
}

/** How a worker says a claim ended (`POST .../finish`). */
export type FinishMessage =
  | { outcome: "succeeded"; result: unknown }
  | { outcome: "failed"; error: SerializedError }
  | { outcome: "cancelled"; reason: string | null }
  | { outcome: "retry"; error: SerializedError };

/** Parses the outcome of `POST /api/worker/runs/:id/finish`. */
export function parseFinish(body: Record<string, unknown>): FinishMessage {
  const outcome = oneOf(body.outcome, ["succeeded", "failed", "cancelled", "retry"] as const, "outcome");
  if (outcome === "succeeded") return { outcome, result: body.result };
  if (outcome === "cancelled") return { outcome, reason: optString(body, "reason") ?? null };
  return { outcome, error: parseWorkerError(body.error) };
}

/** A child run asked for by a park: the parent's step `key` resolves with its outcome. */
export interface ChildMessage {
  key: string;
  position: number;
  /** A registered workflow; absent for a task child (then the parent's workflow). */
  workflow: string | undefined;
  /** A function of the parent's workflow to run as the child (a task child), else undefined. */
  task: string | undefined;
  payload: string | null;
  group: string | undefined;
  maxAttempts: number | undefined;
  concurrency: ConcurrencyLimit | null;
  /** Higher is claimed first (default 0). */
  priority: number | undefined;
  /** The child fails once this long has passed since its first start (enforced by the worker that runs it). */
  timeoutMs: number | undefined;
  /** Reuse the result of a run of the same task and payload that succeeded within this long. */
  cacheTtlMs: number | undefined;
  /**
   * What the parent's journal records the call as (the step's `target`, checked on replay);
   * default the task's or workflow's name. Seed 000's Python host sends `script:<name>` or
   * `flow:<name>`, as the built-in engine records `task_script`/`task_flow` calls.
   */
  target: string | undefined;
}

const CHILD_EXAMPLE = '{"key": "charge", "position": 2, "workflow": "charge-card", "payload": {"orderId": "o1"}}';
const CHILD_FIELDS = [
  "key",
  "position",
  "workflow",
  "task",
  "payload",
  "group",
  "maxAttempts",
  "concurrency",
  "priority",
  "timeoutMs",
  "cacheTtlMs",
  "target",
];
/** Longest task timeout and cache TTL (ms): a year. */
const MAX_TASK_MS = 365 * 86_400_000;

/**
 * Parses `children` of a park: `[{ key, position, workflow | task, payload?, group?,
 * maxAttempts?, concurrency?, priority?, timeoutMs?, cacheTtlMs? }]`.
 */
export function parseChildren(raw: unknown, maxValueBytes: number): ChildMessage[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw bad('"children" must be an array of {key, position, workflow | task, payload?}');
  const keys = new Set<string>();
  return raw.map((c, i) => {
    try {
      return parseChild(c, i, keys, maxValueBytes);
    } catch (err) {
      // Name the child: `"timeoutMs" must be …` alone does not say which of 10,000.
      if (err instanceof InvalidInputError && !err.message.includes(`children[${i}]`))
        throw new InvalidInputError(`children[${i}]: ${err.message}`, { code: err.code, cause: err });
      throw err;
    }
  });
}

function parseChild(c: unknown, i: number, keys: Set<string>, maxValueBytes: number): ChildMessage {
  const o = bodyObject(c, CHILD_EXAMPLE);
  onlyFields(o, CHILD_FIELDS);
  const key = reqString(o, "key", '"charge"');
  if (keys.has(key))
    throw bad(`"children[${i}].key" ${JSON.stringify(key)} is used twice: each child needs its own key`);
  keys.add(key);
  const position = optInt(o, "position", 0, 1_000_000_000);
  if (position === undefined)
    throw bad(`"children[${i}].position" is required: the call's index in the execution, from 0`);
  const task = optString(o, "task") || undefined;
  const workflow =
    task === undefined ? reqString(o, "workflow", '"charge-card"') : optString(o, "workflow") || undefined;
  return {
    key,
    position,
    workflow,
    task,
    payload: encodeValue(o.payload ?? null, `payload of child "${key}"`, maxValueBytes),
    group: optString(o, "group") || undefined,
    maxAttempts: optInt(o, "maxAttempts", 1, 1001),
    concurrency: parseConcurrency(o.concurrency, `children[${i}].concurrency`),
    priority: optInt(o, "priority", -1_000_000, 1_000_000),
    timeoutMs: optInt(o, "timeoutMs", 1, MAX_TASK_MS),
    cacheTtlMs: optInt(o, "cacheTtlMs", 1, MAX_TASK_MS),
    target: parseTarget(o, i),
  };
}

/** A child's journal label: at most 512 characters, absent or empty for the default. */
function parseTarget(o: Record<string, unknown>, i: number): string | undefined {
  const target = optString(o, "target") || undefined;
  if (target !== undefined && target.length > 512)
    throw bad(`"children[${i}].target" must be at most 512 characters (what the journal records the call as)`);
  return target;
}

/**
 * Parses a concurrency limit `{ key, limit, windowMs? }` (a child's, or a run's at enqueue); absent: null.
 * @throws InvalidInputError (INVALID_BODY) naming `field`
 */
export function parseConcurrency(raw: unknown, field: string): ConcurrencyLimit | null {
  if (raw === undefined || raw === null) return null;
  const o = bodyObject(raw, '{"key": "cards", "limit": 1, "windowMs": 60000}');
  onlyFields(o, ["key", "limit", "windowMs"]);
  const limit = optInt(o, "limit", 1, 1_000_000);
  if (limit === undefined) throw bad(`"${field}.limit" is required: how many runs of the key may run at once`);
  return {
    key: reqString(o, "key", '"cards"'),
    limit,
    windowMs: optInt(o, "windowMs", 1, 86_400_000 * 365) ?? null,
  };
}
