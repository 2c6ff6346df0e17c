/**
 * Runs one claim of a Python run on the Python host, against the claim's {@link Execution}.
 *
 * The engine keeps every rule: each durable call Python reports (task, script, flow, step,
 * sleep, approval, resume URLs) is made on the execution's workflows-as-code host in
 * Python's call order, so keys, checkpoints, replay, non-determinism and suspension are the
 * TypeScript ones. Python reports its calls when its event loop goes idle (`turn`); from a
 * message sent to Python until the turn answering it, the driver holds the execution's
 * in-flight count, so a suspension waits until every call of that turn has been made: the
 * calls of one `asyncio.gather` are written by one suspend.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { serializeError } from "../../core/serde.js";
import { performAssetCall } from "../../sdk/windmill/asset-calls.js";
import { requireAssetHost } from "../../sdk/windmill/asset-host.js";
import { subprocessCarrier } from "../../worker/tracing.js";
import { NonDeterminismError, LeaseLostError, WorkflowSuspendedError } from "../../sdk/errors.js";
import { TaskError } from "../../sdk/windmill/task-error.js";
import { validateTaskOptions } from "../../sdk/windmill/task.js";
import type { TaskOptions } from "../../sdk/windmill/types.js";
import { markTerminal } from "../../worker/control.js";
import type { Execution } from "../../worker/execution.js";
import { TaskDeadline } from "../../worker/task-deadline.js";
import { PythonError, type PythonErrorInfo, PythonHostExitedError } from "./errors.js";
import type { HostMessage, PythonHost } from "./host.js";

/** What to run: a workflow's or script's `main`, or a `@task` function of the file. */
export interface PythonStart {
  kind: "workflow" | "task" | "script";
  /** Absolute path of the Python file. */
  file: string;
  /** The `@task` function (kind `task`). */
  fn?: string;
  /** Positional (list) or named (object) arguments. */
  args: unknown[] | Record<string, unknown>;
  /** The code version (content hash) the run is pinned to, and its source (sent once per process). */
  version: string;
  source: string;
  /** The version's `__mod/` companion modules (path in the folder → source), sent with its source. */
  modules?: Record<string, string>;
}

/** A durable call reported by Python. */
interface PyCall {
  cid: number;
  op: "task" | "script" | "flow" | "step" | "sleep" | "approval" | "resume_urls";
  [k: string]: unknown;
}

type CallResult =
  { cid: number; ok: true; value: unknown } | { cid: number; ok: false; error: Record<string, unknown> };

/** Resolves the JavaScript function standing for the `@task` function `name` (the module's task table). */
export type TaskFunctionFor = (name: string) => (...args: unknown[]) => unknown;

/**
 * Runs `start` for `exec` on `host`; resolves with the Python return value.
 * @throws PythonError for an exception of the Python code, PythonHostExitedError when the process died
 */
export function runPython(
  host: PythonHost,
  exec: Execution,
  start: PythonStart,
  taskFunction: TaskFunctionFor,
): Promise<unknown> {
  return new PythonRun(host, exec, start, taskFunction).promise;
}

class PythonRun {
  readonly promise: Promise<unknown>;
  private readonly id: string;
  private seqSent = 0;
  private idle: (() => void) | null = null;
  private results: CallResult[] = [];
  private sendScheduled = false;
  private over = false;
  private readonly bodies = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  private settle!: { resolve: (v: unknown) => void; reject: (e: unknown) => void };
  /** Runs a function in the async context of the claim's handler (where the asset helpers find the run). */
  private readonly inClaim = AsyncLocalStorage.snapshot();

  constructor(
    private readonly host: PythonHost,
    private readonly exec: Execution,
    start: PythonStart,
    private readonly taskFunction: TaskFunctionFor,
  ) {
    this.id = `${exec.run.id}:${exec.lease.token}`;
    this.promise = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    host.attach(this.id, {
      message: (m) => this.onMessage(m),
      exit: (e) => this.fail(e),
    });
    // The claim ended (suspended, fenced, finished): Python forgets the execution.
    void exec.done.then(() => this.end(true));
    try {
      // The run's trace context, for `wmill.trace_context()` in Python; a task's time left before
      // its timeout, for Python's watchdog (it stops code that blocks its loop past it).
      this.send({ t: "start", ...start, ...subprocessCarrier(exec.run), ...timeLeft(exec) });
    } catch (err) {
      this.fail(err);
    }
  }

  private send(msg: Record<string, unknown>): void {
    this.seqSent++;
    this.track();
    this.host.send({ ...msg, id: this.id, seq: this.seqSent });
  }

  /** Holds the execution's in-flight count until Python reports idle. */
  private track(): void {
    if (this.idle || this.over) return;
    this.exec.track(() => new Promise<void>((r) => (this.idle = r))).catch(() => {});
  }

  private untrack(): void {
    const r = this.idle;
    this.idle = null;
    r?.();
  }

  private end(drop: boolean): void {
    if (this.over) return;
    this.over = true;
    this.untrack();
    this.host.detach(this.id);
    if (drop) {
      try {
        this.host.send({ t: "drop", id: this.id });
      } catch {
        // the process is gone: nothing to drop
      }
    }
  }

  private fail(err: unknown): void {
    for (const b of this.bodies.values()) b.reject(err);
    this.bodies.clear();
    this.end(!(err instanceof PythonHostExitedError));
    this.settle.reject(err);
  }

  private onMessage(msg: HostMessage): void {
    if (this.over) return;
    switch (msg.t) {
      case "turn":
        this.onTurn(msg.calls as PyCall[], msg.seq as number);
        return;
      case "asset":
        this.assetCall(msg.rid as number, String(msg.op), (msg.args ?? {}) as Record<string, unknown>);
        return;
      case "log":
        this.exec.log(msg.level === "error" ? "error" : "info", String(msg.text), null);
        return;
      case "step_done": {
        const body = this.bodies.get(msg.cid as number);
        this.bodies.delete(msg.cid as number);
        if (msg.ok) body?.resolve(msg.value);
        else body?.reject(pythonError(msg.error as PythonErrorInfo, this.exec));
        return;
      }
      case "done":
        this.end(false);
        if (msg.ok) this.settle.resolve(msg.value ?? null);
        else this.settle.reject(markTerminal(pythonError(msg.error as PythonErrorInfo, this.exec)));
        return;
    }
  }

  private onTurn(calls: PyCall[], seq: number): void {
    for (const call of calls) this.perform(call);
    if (seq >= this.seqSent && this.results.length === 0) this.untrack();
  }

  /** Makes one Python call on the execution's workflows-as-code host. */
  private perform(call: PyCall): void {
    let p: PromiseLike<unknown>;
    try {
      p = this.start(call);
    } catch (err) {
      p = Promise.reject(err);
    }
    p.then(
      (value) => this.queue({ cid: call.cid, ok: true, value: value ?? null }),
      (err) => this.callFailed(call.cid, err),
    );
  }

  private start(call: PyCall): PromiseLike<unknown> {
    const exec = this.exec;
    const options = () => validateTaskOptions((call.options ?? {}) as TaskOptions);
    switch (call.op) {
      case "task":
        return exec.callTask(
          { kind: "function", fn: this.taskFunction(String(call.name)) },
          options(),
          call.args as unknown[],
        );
      case "script":
      case "flow":
        return exec.callTask(
          { kind: call.op, path: String(call.path) },
          options(),
          (call.args ?? {}) as Record<string, unknown>,
        );
      case "step":
        return exec.step(String(call.name), () => this.runBody(call.cid));
      case "sleep":
        return exec.sleepSeconds(Number(call.seconds));
      case "approval":
        return exec.waitForApproval({
          timeout: call.timeout as number,
          form: (call.form ?? undefined) as Record<string, unknown> | undefined,
          selfApproval: call.selfApproval !== false,
        });
      case "resume_urls":
        return exec.resumeUrls((call.approver as string | null) ?? null);
    }
    throw new Error(`unknown call ${JSON.stringify(call.op)} from the Python SDK`);
  }

  /**
   * An asset helper called by the Python code (`wmill.write_s3_file`, …): made on the asset
   * storage the run's TypeScript code would use (a pipeline run records its writes), answered
   * on the host's answer pipe. Not a durable call: a replay that repeats it writes again.
   */
  private assetCall(rid: number, op: string, args: Record<string, unknown>): void {
    this.inClaim(() => {
      let p: Promise<unknown>;
      try {
        p = performAssetCall(requireAssetHost(`wmill.${op}`), op, args);
      } catch (err) {
        p = Promise.reject(err);
      }
      p.then(
        (value) => this.host.answerAssetCall({ rid, ok: true, value: value ?? null }),
        (err) => {
          const e = serializeError(err);
          this.host.answerAssetCall({ rid, ok: false, error: { code: e.code ?? e.name, message: e.message } });
        },
      );
    });
  }

  private runBody(cid: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.bodies.set(cid, { resolve, reject });
      this.send({ t: "step_body", cid });
    });
  }

  private callFailed(cid: number, err: unknown): void {
    if (err instanceof WorkflowSuspendedError || err instanceof LeaseLostError) return;
    if (err instanceof NonDeterminismError) {
      // Not the code's to catch: the run fails to replay.
      this.fail(markTerminal(err));
      return;
    }
    if (err instanceof TaskError) {
      this.queue({
        cid,
        ok: false,
        error: {
          message: err.message,
          task: { step_key: err.step_key, child_job_id: err.child_job_id, result: err.result },
        },
      });
      return;
    }
    const e = err as { message?: string; code?: string; name?: string };
    this.queue({ cid, ok: false, error: { message: e?.message ?? String(err), code: e?.code, name: e?.name } });
  }

  private queue(result: CallResult): void {
    if (this.over) return;
    this.results.push(result);
    this.track();
    if (this.sendScheduled) return;
    this.sendScheduled = true;
    setImmediate(() => {
      this.sendScheduled = false;
      if (this.over) return;
      const results = this.results.splice(0);
      try {
        this.send({ t: "resolve", results });
      } catch (err) {
        this.fail(err);
      }
    });
  }
}

/** `{timeLeftMs}` until the run's `timeout` passes (none without one), as the worker's timer counts it. */
function timeLeft(exec: Execution): { timeLeftMs?: number } {
  const now = exec.now();
  const deadline = TaskDeadline.of(exec.run, now);
  return deadline === null ? {} : { timeLeftMs: Math.max(0, deadline.at - now) };
}

function pythonError(info: PythonErrorInfo | undefined, exec: Execution): PythonError {
  const err = new PythonError(info ?? {});
  if (info?.traceback) exec.log("error", info.traceback.trimEnd(), null);
  return err;
}
