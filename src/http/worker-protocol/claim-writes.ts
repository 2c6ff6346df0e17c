/**
 * The fenced writes of a claim (checkpoint, park, finish, logs) in two halves, so that
 * one write and a batch of many share one code path:
 *   - {@link ClaimWrites.prepare} parses a body and reads what the write needs (the run,
 *     for a finish); it writes nothing and throws a named error for bad input;
 *   - {@link ClaimWrites.apply} hands the command to the engine's group committer
 *     (synchronously: the writes of a batch applied in one turn share one transaction
 *     and one fsync) and resolves with the route's answer once it is committed.
 * A stale fencing token is refused with 409 `LEASE_LOST` and nothing is written.
 */
import { backoffDelay } from "../../core/backoff.js";
import { checkArguments, InvalidArgumentsError, type ParamSpec } from "../../core/params.js";
import { decodeValue, encodeValue, type SerializedError } from "../../core/serde.js";
import { taskRunFields } from "../../core/task-options.js";
import type { Engine } from "../../engine/engine.js";
import { newRunId } from "../../core/ids.js";
import { InvalidInputError, LeaseLostError, RunNotFoundError, UnknownWorkflowError } from "../../sdk/errors.js";
import { tracePark } from "../../worker/tracing.js";
import type {
  ChildSpec,
  Command,
  CommandResult,
  Lease,
  LogLine,
  RunOutcome,
  StepWrite,
  WorkflowInfo,
} from "../../store/types.js";
import { ConflictError } from "../errors.js";
import { parseLogLines, type RefusedLogLine } from "./log-lines.js";
import { bodyObject, onlyFields, optInt } from "../input.js";
import {
  type ChildMessage,
  type FinishMessage,
  parseChildren,
  parseFinish,
  parseLease,
  parseSteps,
} from "./messages.js";

/** A write named a claim that is no longer the run's current one (409). */
export class LeaseLostHttpError extends ConflictError {
  constructor(runId: string) {
    super("LEASE_LOST", new LeaseLostError(runId).message + ": stop working on this claim (do not retry the write)");
  }
}

/** The kinds of fenced write, by their route's last path segment. */
export const CLAIM_WRITE_OPS = ["steps", "children", "park", "finish", "logs"] as const;
/** One kind of fenced write. */
export type ClaimWriteOp = (typeof CLAIM_WRITE_OPS)[number];

/** A parsed write, ready to hand to the committer. */
export type PreparedWrite =
  | {
      op: "steps" | "children" | "park" | "finish";
      runId: string;
      command: Command;
      answer: Record<string, unknown>;
      /** Whether committing it may make other runs claimable (rings the claims' bell); default: for parks and finishes. */
      wakes?: boolean;
    }
  | { op: "logs"; runId: string; lines: LogLine[]; refused: RefusedLogLine[] };

const EXAMPLES: Record<ClaimWriteOp, string> = {
  steps: '{"token": 3, "steps": [{"key": "charge", "kind": "step", "status": "done", "position": 0, "value": 1}]}',
  children: '{"token": 3, "children": [{"key": "extract", "position": 0, "task": "extract", "payload": {"n": 1}}]}',
  park: '{"token": 3, "steps": [{"key": "nap", "kind": "sleep", "status": "pending", "position": 1, "wakeAfterMs": 60000}], "wakeAfterMs": 60000}',
  finish: '{"token": 3, "outcome": "succeeded", "result": {"ok": true}}',
  logs: '{"token": 3, "attempt": 1, "lines": [{"level": "info", "message": "charged", "stepKey": "charge", "ts": 1796111238070}]}',
};
const FIELDS: Record<ClaimWriteOp, readonly string[]> = {
  steps: ["token", "steps"],
  children: ["token", "children"],
  park: ["token", "steps", "wakeAfterMs", "children", "awaitChildren"],
  finish: ["token", "outcome", "result", "error", "reason"],
  logs: ["token", "attempt", "lines"],
};

/** See the module comment. */
export class ClaimWrites {
  constructor(private readonly engine: Engine) {}

  /**
   * Parses the body of one write of run `runId` and reads what it needs; writes nothing.
   * @throws InvalidInputError (400) naming the field, RunNotFoundError (404) for a finish of an unknown run
   */
  async prepare(op: ClaimWriteOp, runId: string, raw: unknown): Promise<PreparedWrite> {
    const { engine } = this;
    const b = bodyObject(raw, EXAMPLES[op]);
    onlyFields(b, FIELDS[op]);
    const lease = parseLease(runId, b);
    switch (op) {
      case "steps": {
        const steps = parseSteps(b.steps, engine.maxValueLimit);
        return { op, runId, command: { verb: "saveSteps", lease, steps }, answer: { saved: steps.map((s) => s.key) } };
      }
      case "children": {
        // Part of a park too large for one request: children created now, the claim kept.
        const msgs = parseChildren(b.children, engine.maxValueLimit);
        if (msgs.length === 0)
          throw new InvalidInputError('"children" is required: a non-empty array of {key, position, workflow | task}', {
            code: "INVALID_BODY",
          });
        // A repeat (a retry after a lost answer) must not create the children twice: keys the
        // run already has are skipped.
        const known = new Set((await engine.store.getSteps(runId)).map((st) => st.key));
        const fresh = msgs.filter((m) => !known.has(m.key));
        const steps: StepWrite[] = [];
        const children = await this.childSpecs(lease, fresh, steps);
        const command: Command = {
          verb: "suspend",
          lease,
          steps,
          children,
          wakeAfterMs: null,
          awaitChildren: false,
          keepClaim: true,
        };
        const answer = {
          created: fresh.map((m) => m.key),
          existing: msgs.filter((m) => known.has(m.key)).map((m) => m.key),
        };
        return { op, runId, command, answer };
      }
      case "park": {
        const steps = parseSteps(b.steps, engine.maxValueLimit);
        const wakeAfterMs = optInt(b, "wakeAfterMs", 0, Number.MAX_SAFE_INTEGER) ?? null;
        const asked = parseChildren(b.children, engine.maxValueLimit);
        const children = await this.childSpecs(lease, asked, steps);
        await this.tracePark(lease, steps, wakeAfterMs);
        if (b.awaitChildren !== undefined && typeof b.awaitChildren !== "boolean")
          throw new InvalidInputError('"awaitChildren" must be true or false', { code: "INVALID_BODY" });
        const command: Command = {
          verb: "suspend",
          lease,
          steps,
          children,
          wakeAfterMs,
          // Wake when all children of the run are finished (default: when this park asks for some;
          // with every one refused for its arguments, at once, to read the failed steps).
          awaitChildren: (b.awaitChildren as boolean | undefined) ?? asked.length > 0,
        };
        return { op, runId, command, answer: { status: "waiting" } };
      }
      case "finish": {
        const msg = parseFinish(b);
        const run = await engine.store.getRun(runId);
        if (!run) throw new RunNotFoundError(runId);
        const outcome = toOutcome(msg, run, engine.maxValueLimit);
        return {
          op,
          runId,
          command: { verb: "complete", lease, outcome },
          wakes: finishWakes(run, outcome),
          answer: {
            status: outcome.status === "retry" ? "pending" : outcome.status,
            ...(outcome.status === "retry" ? { retryInMs: outcome.delayMs } : {}),
          },
        };
      }
      case "logs":
        // Times are checked against the store's clock (the one `claimedAt` is on), read only when a line has one.
        return { op, runId, ...(await parseLogLines(runId, lease.token, b, () => engine.store.now())) };
    }
  }

  /**
   * The child runs of a park, from their workflows' registrations; adds each child's
   * pending `task` step (resolved by the child's completion) to `steps`. A task child
   * (`task`) is a run of the parent's own workflow pinned to the parent's code version,
   * stored as the built-in engine stores a `task(fn)` call (`workflow`, `task`, `version`,
   * step target = the function's name); its options follow the engine's rules
   * (`core/task-options.ts`): `options.timeoutMs`, and a cache key and TTL the store
   * resolves in the park's commit. A workflow child whose payload does not fit its workflow's
   * parameters (as an enqueue of it would be refused: `checkArguments`) is not created: its step is
   * written failed with the `INVALID_ARGUMENTS` error, which the parent's replay reads back, as the
   * built-in engine does for such a `taskScript` call (`worker/wac-host.ts`).
   * @throws UnknownWorkflowError for a child of a workflow nobody registered
   * @throws InvalidInputError for a task child that names another workflow than its parent's
   */
  private async childSpecs(lease: Lease, msgs: ChildMessage[], steps: StepWrite[]): Promise<ChildSpec[]> {
    if (msgs.length === 0) return [];
    const { store } = this.engine;
    const parent = await store.getRun(lease.runId);
    if (!parent) throw new RunNotFoundError(lease.runId);
    const infos = new Map<string, WorkflowInfo>();
    for (const [i, m] of msgs.entries()) {
      if (m.task !== undefined && m.workflow !== undefined && m.workflow !== parent.workflow)
        throw new InvalidInputError(
          `"children[${i}].workflow" must be the parent's workflow ${JSON.stringify(parent.workflow)} for a task child (or be left out): a task is a function of the parent's own workflow`,
          { code: "INVALID_BODY" },
        );
      const name = m.workflow ?? parent.workflow;
      if (infos.has(name)) continue;
      const info = await store.getWorkflow(name);
      if (!info)
        throw new UnknownWorkflowError(
          name,
          (await store.listWorkflows()).map((w) => w.name),
        );
      infos.set(name, info);
    }
    // The claim's attempt span (`child` spans under it), else the parent's stored context.
    const traced = { traceSpan: this.engine.externalLeases.spanOf(lease), run: parent };
    return msgs.flatMap((m) => {
      const workflow = m.workflow ?? parent.workflow;
      const info = infos.get(workflow)!;
      const task = m.task ?? null;
      const refused = task === null ? argumentsRefusal(m, workflow, info.params) : null;
      if (refused) {
        const target = m.target ?? workflow;
        steps.push({ key: m.key, kind: "task", target, status: "error", error: refused, position: m.position });
        return [];
      }
      const id = newRunId();
      steps.push({
        key: m.key,
        kind: "task",
        target: m.target ?? task ?? workflow,
        status: "pending",
        childId: id,
        position: m.position,
      });
      const fields = taskRunFields(workflow, task, m.payload, { timeoutMs: m.timeoutMs, cacheTtlMs: m.cacheTtlMs });
      const child: ChildSpec = {
        id,
        dedupe: false,
        workflow,
        task,
        // A task runs the parent's code; a workflow child is pinned at its first claim.
        version: task === null ? null : parent.version,
        queue: m.group ?? info.queue,
        payload: m.payload,
        priority: m.priority ?? 0,
        maxAttempts: m.maxAttempts ?? info.maxAttempts,
        backoff: info.backoff,
        createdBy: parent.createdBy,
        parentKey: m.key,
        concurrency: m.concurrency,
        cacheKey: fields.cacheKey,
        cacheTtlMs: fields.cacheTtlMs,
        // Children continue the parent's trace: a `child` span of the attempt, as in process.
        options: tracePark(traced, { child: { id, workflow, task, options: fields.options } }) ?? null,
      };
      return [child];
    });
  }

  /**
   * A `park` span under the claim's attempt span (as `Execution.defer` records one in process)
   * for a park that waits on something besides children: a sleep, a wait, an approval, a
   * step retry later. Reads the run only when the attempt span records.
   */
  private async tracePark(lease: Lease, steps: StepWrite[], wakeAfterMs: number | null): Promise<void> {
    const span = this.engine.externalLeases.spanOf(lease);
    const pending = steps.find((st) => st.status === "pending" && st.kind !== "task");
    if (!span?.isRecording() || (!pending && wakeAfterMs === null)) return;
    const run = await this.engine.store.getRun(lease.runId);
    if (!run) return;
    tracePark(
      { traceSpan: span, run },
      {
        wakeAfterMs,
        ...(pending && { step: { key: pending.key, kind: pending.kind, wakeAfterMs: pending.wakeAfterMs ?? null } }),
      },
    );
  }

  /**
   * Hands a prepared write to the committer now (in this turn) and resolves with its
   * answer once committed.
   * @throws LeaseLostHttpError (409) when the token is stale; a ConflictError for another refusal
   */
  apply(w: PreparedWrite): Promise<Record<string, unknown>> {
    const { engine } = this;
    if (w.op === "logs") {
      for (const line of w.lines) engine.committer.log(line);
      // Drained a microtask later, so that the writes applied after these in the same turn share the commit.
      return Promise.resolve()
        .then(() => engine.committer.drain())
        .then(() => ({ accepted: w.lines.length, ...(w.refused.length > 0 && { refused: w.refused }) }));
    }
    return engine.committer.submit(w.command).then((r) => {
      // A park or finish ends the claim (whether it was written or fenced): nothing to release.
      // Its attempt span ends with the status written, `suspended`, or `fenced`.
      if (w.command.verb === "complete")
        engine.externalLeases.forget(
          w.command.lease,
          r.ok ? w.command.outcome.status : "fenced",
          "error" in w.command.outcome ? w.command.outcome.error : null,
        );
      else if (w.command.verb === "suspend" && !w.command.keepClaim)
        engine.externalLeases.forget(w.command.lease, r.ok ? "suspended" : "fenced");
      refuseUnlessOk(r, w.runId);
      if (w.op === "finish") engine.events.emit("settled", w.runId);
      if (w.op !== "steps" && w.wakes !== false) engine.events.emit("work");
      return w.answer;
    });
  }
}

/** Why a workflow child may not start with its payload (the step's error), or null when it fits or the parameters are unknown. */
function argumentsRefusal(m: ChildMessage, workflow: string, params?: ParamSpec | null): SerializedError | null {
  if (!params) return null;
  try {
    checkArguments(workflow, params, decodeValue(m.payload));
    return null;
  } catch (err) {
    if (!(err instanceof InvalidArgumentsError)) throw err;
    return { name: err.name, message: `child ${JSON.stringify(m.key)} not started: ${err.message}`, code: err.code };
  }
}

/**
 * Whether a finish can make another run claimable: a retry (the run itself, after its
 * backoff: waiting claims recompute their next timer), a child (its parent), a run under a
 * concurrency limit (the runs it held back). A top-level run without a limit that ends
 * frees nothing another claim could take, so waiting claims are not woken for it (they
 * would only query the store again, just as the next enqueue wants to commit).
 */
export function finishWakes(run: { parentId: string | null; concurrency: unknown }, outcome: RunOutcome): boolean {
  return outcome.status === "retry" || run.parentId !== null || run.concurrency !== null;
}

function refuseUnlessOk(r: CommandResult, runId: string): void {
  if (!r.ok && r.fenced) throw new LeaseLostHttpError(runId);
  if (!r.ok) throw new ConflictError(r.error.code ?? "WRITE_REFUSED", r.error.message);
}

/** The store outcome for a worker's finish; `retry` becomes `failed` once attempts are spent, with the run's backoff. */
function toOutcome(
  msg: FinishMessage,
  run: { attempt: number; maxAttempts: number; backoff: { base: number; max: number }; id: string },
  maxBytes: number,
): RunOutcome {
  switch (msg.outcome) {
    case "succeeded":
      return { status: "succeeded", result: encodeValue(msg.result, `result of run ${run.id}`, maxBytes) };
    case "failed":
      return { status: "failed", error: msg.error };
    case "cancelled":
      return { status: "cancelled", reason: msg.reason };
    case "retry":
      if (run.attempt >= run.maxAttempts) return { status: "failed", error: msg.error };
      return { status: "retry", error: msg.error, delayMs: backoffDelay(run.backoff, run.attempt) };
  }
}
