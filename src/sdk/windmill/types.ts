/**
 * Public types of the workflows-as-code API (seed 000), shared by the SDK free
 * functions and the worker that implements them.
 */

/** Options every task type accepts (seed 000 "Task options"). Times are in seconds. */
export interface TaskOptions {
  /**
   * Maximum execution time in seconds: the child is stopped and fails after it (`TASK_TIMEOUT`).
   * A TypeScript task runs on its worker's event loop, so code that blocks it (a busy loop, a
   * synchronous call) can only be stopped when it yields: it fails when it returns, and until
   * then that worker's timers, lease heartbeats and other runs wait. Python tasks are stopped on
   * time (a plain `def` runs on a thread; an `async def` that blocks its loop is interrupted).
   */
  timeout?: number;
  /** Worker tag (group) the child is routed to. */
  tag?: string;
  /** Reuse the result of the same task with the same arguments for this many seconds. */
  cache_ttl?: number;
  /** Queue priority: higher is picked up sooner. */
  priority?: number;
  /** At most this many executions at once (per `concurrency_key`, across all workers). */
  concurrency_limit?: number;
  /** Key grouping the concurrency limit; default: the task itself. */
  concurrency_key?: string;
  /** With `concurrency_limit`: at most that many started within this many seconds. */
  concurrency_time_window_s?: number;
}

/** Options of `waitForApproval`. */
export interface ApprovalOptions {
  /** Maximum wait in seconds (default 1800); then `{ approved: false, value: null }`. */
  timeout?: number;
  /** Form fields (`{ reason: { type: "string" } }`) or a full JSON Schema object. */
  form?: Record<string, unknown>;
  /** Whether the user who started the run may approve it. Default true. */
  selfApproval?: boolean;
}

/** What `waitForApproval` returns. */
export interface ApprovalResult<V = any> {
  /** Submitted form data (null on timeout or when nothing was submitted). */
  value: V;
  /** Who approved or rejected (null on timeout). */
  approver: string | null;
  approved: boolean;
}

/** URLs for programmatic control of the next approval wait. */
export interface ResumeUrls {
  /** GET: the approval page with its form. */
  approvalPage: string;
  /** POST: approve (body: the form value as JSON). */
  resume: string;
  /** POST: reject. */
  cancel: string;
}

/** What a task call dispatches: a function of this module, a script, or a workflow. */
export type TaskTarget =
  | { kind: "function"; fn: (...args: any[]) => unknown; path?: string }
  | { kind: "script"; path: string }
  | { kind: "flow"; path: string };

/**
 * What the engine provides to the SDK free functions while a workflow runs (the
 * worker's execution implements it).
 */
export interface WacHost {
  callTask(target: TaskTarget, options: TaskOptions, args: unknown[] | Record<string, unknown>): Promise<unknown>;
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
  sleepSeconds(seconds: number): Promise<void>;
  waitForApproval(options: ApprovalOptions): Promise<ApprovalResult>;
  resumeUrls(approver: string | null): Promise<ResumeUrls>;
}
