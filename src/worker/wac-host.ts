/**
 * The workflows-as-code primitives (seed 000) on an {@link Execution}: child tasks,
 * inline steps, server-side sleep, approvals and resume links.
 */
import { RUN_BACKOFF } from "../core/backoff.js";
import { newRunId } from "../core/ids.js";
import { RESUME_LINK_TTL_MS, resumeUrls } from "../core/resume-token.js";
import { taskRunFields } from "../core/task-options.js";
import { isAcceptedDuration } from "../core/time.js";
import { decodeValue, type SerializedError } from "../core/serde.js";
import { InvalidInputError } from "../sdk/errors.js";
import { TaskError } from "../sdk/windmill/task-error.js";
import type { ApprovalOptions, ApprovalResult, ResumeUrls, TaskOptions, TaskTarget } from "../sdk/windmill/types.js";
import type { ChildSpec } from "../store/types.js";
import { markTerminal } from "./control.js";
import type { Execution } from "./execution.js";
import { runStep, sleepFor } from "./primitives.js";
import { moduleScriptName } from "./script-paths.js";

/** Checkpoint key base of `waitForApproval` calls (matches the workflow diagram). */
export const APPROVAL_KEY = "waitForApproval";
/** Checkpoint key base of Windmill-style `sleep` calls. */
const SLEEP_KEY = "sleep";
/** Default approval timeout: 30 minutes. */
const DEFAULT_APPROVAL_TIMEOUT_S = 1800;

/** `task(...)(args)`, `taskScript(path)(args)`, `taskFlow(path)(args)`. */
export function callTask(
  exec: Execution,
  target: TaskTarget,
  options: TaskOptions,
  args: unknown[] | Record<string, unknown>,
): Promise<unknown> {
  exec.assertActive();
  const { keyBase, workflow, task, version, label } = resolveTarget(exec, target);
  const { key, position } = exec.nextCall(keyBase);
  const rec = exec.lookup(key, "task", label, position);
  if (rec?.status === "done") return Promise.resolve(decodeValue(rec.value));
  if (rec?.status === "error") return exec.trackRejection(key, taskError(key, rec.childId, rec.error));
  if (rec) return exec.defer({ awaitChildren: true });
  const payload = exec.encode(args, `arguments of task "${key}"`);
  const create = () => createChild(exec, { key, position, workflow, task, version, label }, options, payload);
  if (target.kind === "function") return create();
  // A script or workflow named by path must exist and take these arguments, as an enqueue of it
  // must: an unknown path, or arguments its `main` does not take, fail the call at once (recorded,
  // so every replay fails it the same way) instead of a child nobody runs or one that fails later.
  const refusal = exec.deps.runnable?.(workflow, args) ?? null;
  if (refusal === null) return create();
  // The store is asked, or the failure is written: inline work, which the turn's suspension waits for.
  exec.beginInline();
  const outcome = Promise.resolve(refusal)
    .catch(() => null)
    .then(async (err) => {
      try {
        if (!err) return create();
        return await refusedTarget(exec, { key, position, label }, target, workflow, err);
      } finally {
        exec.endInline();
      }
    });
  // Rejected for its caller; a call nobody awaits is not an unhandled rejection (its failure is logged).
  outcome.catch(() => {});
  return outcome;
}

interface CallSite {
  key: string;
  position: number;
  label: string;
}

function createChild(
  exec: Execution,
  at: CallSite & { workflow: string; task: string | null; version: string | null },
  options: TaskOptions,
  payload: string | null,
): Promise<unknown> {
  const { key, position, workflow, task, version, label } = at;
  const child: ChildSpec = {
    id: newRunId(),
    dedupe: false,
    workflow,
    task,
    version,
    queue: options.tag ?? "default",
    payload,
    priority: options.priority ?? 0,
    // Errors in a task are final (see taskDefinition); the attempts cover a worker that dies.
    maxAttempts: 3,
    backoff: RUN_BACKOFF,
    createdBy: exec.run.createdBy,
    parentKey: key,
    ...taskRunFields(workflow, task, payload, {
      timeoutMs: options.timeout ? Math.round(options.timeout * 1000) : null,
      cacheTtlMs: options.cache_ttl ? Math.round(options.cache_ttl * 1000) : null,
    }),
  };
  if (options.concurrency_limit) {
    child.concurrency = {
      key: options.concurrency_key ?? `${workflow}:${task ?? ""}`,
      limit: options.concurrency_limit,
      windowMs: options.concurrency_time_window_s ? Math.round(options.concurrency_time_window_s * 1000) : null,
    };
  }
  return exec.defer({
    step: { key, kind: "task", target: label, status: "pending", childId: child.id, position },
    child,
  });
}

/**
 * Fails a `taskScript`/`taskFlow` call whose path names no runnable, or whose arguments do not fit
 * its parameters: the `task` checkpoint is written as failed (no child) with the refusal's name and
 * code (`UNKNOWN_WORKFLOW`, `INVALID_ARGUMENTS`), and the call rejects with the `TaskError` every
 * replay reads back.
 */
async function refusedTarget(
  exec: Execution,
  at: CallSite,
  target: Exclude<TaskTarget, { kind: "function" }>,
  name: string,
  refusal: Error,
): Promise<never> {
  const call = `task${target.kind === "script" ? "Script" : "Flow"}(${JSON.stringify(target.path)})`;
  const named = target.path.trim() === name ? "" : ` (the path names "${name}")`;
  const code = (refusal as { code?: unknown }).code;
  const error: SerializedError = {
    name: refusal.name,
    message: `${call}${named}: ${refusal.message}`,
    code: typeof code === "string" ? code : "UNKNOWN_WORKFLOW",
  };
  await exec.save([{ key: at.key, kind: "task", target: at.label, status: "error", error, position: at.position }]);
  exec.log("warn", `task "${at.key}" failed: ${error.message}`, null);
  throw taskError(at.key, null, error);
}

function resolveTarget(exec: Execution, target: TaskTarget) {
  if (target.kind === "function") {
    const name = exec.functionName(target.fn);
    return { keyBase: name, workflow: exec.run.workflow, task: name, version: exec.run.version, label: name };
  }
  const name = moduleScriptName(target.path, exec.modulePath());
  return { keyBase: target.path, workflow: name, task: null, version: null, label: `${target.kind}:${name}` };
}

function taskError(key: string, childId: string | null, error: SerializedError | null): TaskError {
  const message = error?.message ?? "task failed";
  return new TaskError(message, key, childId, error);
}

/** `step(name, fn)`: inline, persisted, no retries. */
export function wacStep<T>(exec: Execution, name: string, fn: () => T | Promise<T>): Promise<T> {
  return runStep(exec, name, () => fn());
}

/** `sleep(seconds)`: always parks the run (minimum 1 s, rounded). */
export function wacSleep(exec: Execution, seconds: number): Promise<void> {
  const ms = Math.max(1, Math.round(seconds)) * 1000;
  return sleepFor(exec, SLEEP_KEY, ms, 0);
}

/** `waitForApproval({ timeout, form, selfApproval })`. */
export async function wacApproval(exec: Execution, options: ApprovalOptions): Promise<ApprovalResult> {
  const timeoutS = options.timeout ?? DEFAULT_APPROVAL_TIMEOUT_S;
  if (typeof timeoutS !== "number" || !(timeoutS > 0) || !isAcceptedDuration(timeoutS * 1000)) {
    throw markTerminal(
      new InvalidInputError(
        `waitForApproval timeout must be a positive number of seconds (at most 1000 years), got ${JSON.stringify(options.timeout)}`,
      ),
    );
  }
  const { key, position } = exec.nextCall(APPROVAL_KEY);
  const rec = exec.lookup(key, "approval", null, position);
  if (rec?.status === "done") return decodeValue<ApprovalResult>(rec.value);
  if (rec) {
    const left = rec.wakeAt === null ? null : rec.wakeAt - exec.now();
    if (left !== null && left <= 0) {
      const timedOut: ApprovalResult = { value: null, approver: null, approved: false };
      await exec.save([
        { key, kind: "approval", target: null, status: "done", value: JSON.stringify(timedOut), position },
      ]);
      exec.log("warn", `approval "${key}" timed out after ${timeoutS} s`, null);
      return timedOut;
    }
    return exec.defer({ wakeAfterMs: left });
  }
  const request = { form: options.form ?? null, selfApproval: options.selfApproval ?? true, timeout: timeoutS };
  const wakeAfterMs = Math.round(timeoutS * 1000);
  return exec.defer({
    step: {
      key,
      kind: "approval",
      target: null,
      status: "pending",
      value: JSON.stringify(request),
      wakeAfterMs,
      position,
    },
    wakeAfterMs,
  });
}

/** `getResumeUrls(approver?)`: links bound to this run's next approval wait. */
export async function wacResumeUrls(exec: Execution, approver: string | null): Promise<ResumeUrls> {
  const links = exec.deps.resumeLinks;
  const [secret, baseUrl] = await Promise.all([links.secret(), links.baseUrl()]);
  return resumeUrls(baseUrl, secret, {
    runId: exec.run.id,
    key: exec.peekKey(APPROVAL_KEY),
    approver,
    exp: exec.now() + RESUME_LINK_TTL_MS,
  });
}
