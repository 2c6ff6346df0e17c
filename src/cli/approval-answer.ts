/**
 * Answering approvals inline (`sluice preview`): the pure reading of one answer line, and the
 * loop that waits for a run while asking for every approval its run tree waits on.
 *
 * @module
 */
import { explainOutcome, pendingApprovals } from "../engine/approvals.js";
import type { Engine } from "../engine/engine.js";
import { SluiceError, WaitTimeoutError } from "../sdk/errors.js";
import type { RunRecord } from "../store/types.js";

/** An answer to an approval question: approve (with an optional form value) or reject. */
export type ApprovalAnswer = { approve: true; value?: unknown } | { approve: false };

/**
 * Reads one answer line: `y`/`yes`/`approve` approve, `n`/`no`/`reject` reject, a JSON object
 * approves with that form value. Null when the line is none of these (ask again).
 */
export function parseApprovalAnswer(line: string): ApprovalAnswer | null {
  const text = line.trim();
  if (/^(y|yes|approve)$/i.test(text)) return { approve: true };
  if (/^(n|no|reject)$/i.test(text)) return { approve: false };
  if (text.startsWith("{")) {
    try {
      const value: unknown = JSON.parse(text);
      if (value && typeof value === "object" && !Array.isArray(value)) return { approve: true, value };
    } catch {
      return null;
    }
  }
  return null;
}

/** A run waits for an approval and standard input has ended (or gave no usable answer). */
export class ApprovalUnansweredError extends SluiceError {
  constructor(runId: string, key: string) {
    super(
      "APPROVAL_UNANSWERED",
      `run ${runId} waits for approval ${key} and no answer came on standard input: answer y, n or a JSON form value, e.g. \`echo y | sluice preview …\``,
    );
  }
}

/** Where {@link waitAnsweringApprovals} asks and tells. */
export interface ApprovalPrompts {
  /** Asks a question; the next answer line, or null once input has ended. */
  prompt(question: string): Promise<string | null>;
  /** A line for the person (the decision, a refusal). */
  say(line: string): void;
  /** Who decides (recorded in the audit). */
  actor: string;
}

/**
 * Waits for run `rootId` to finish, asking for each approval that it or one of its descendant runs
 * waits on, and applying the answer.
 * @throws ApprovalUnansweredError when input ends while an approval waits; WaitTimeoutError after `timeoutMs`
 */
export async function waitAnsweringApprovals(
  engine: Engine,
  rootId: string,
  timeoutMs: number,
  io: ApprovalPrompts,
  pollMs = 100,
): Promise<RunRecord> {
  const deadline = Date.now() + timeoutMs;
  const decided = new Set<string>();
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) throw new WaitTimeoutError(rootId, timeoutMs);
    const done = await engine.waitForRun(rootId, Math.min(left, pollMs)).catch((err: unknown) => {
      if (err instanceof WaitTimeoutError) return null;
      throw err;
    });
    if (done) return done;
    for (const run of await waitingTree(engine, rootId)) {
      for (const p of pendingApprovals(await engine.store.getSteps(run.id))) {
        const id = `${run.id}\u0000${p.key}`;
        if (decided.has(id)) continue;
        const form = p.form ? ` form ${JSON.stringify(p.form)}` : "";
        const answer = await askUntilUnderstood(
          io,
          `approval ${p.key} of ${run.workflow} (run ${run.id})${form}: approve? [y]es, [n]o, or a JSON form value: `,
        );
        if (!answer) throw new ApprovalUnansweredError(run.id, p.key);
        const result = await engine.decideApproval({
          runId: run.id,
          key: p.key,
          approve: answer.approve,
          value: answer.approve ? answer.value : undefined,
          actor: io.actor,
          via: "cli",
        });
        if (result.outcome === "resolved") {
          decided.add(id);
          io.say(`${answer.approve ? "approved" : "rejected"} ${p.key} of run ${run.id}\n`);
        } else io.say(`not decided: ${explainOutcome(result.outcome, run.id, result.problems)}\n`);
      }
    }
  }
}

/** Asks until the answer is one {@link parseApprovalAnswer} reads (null once input has ended). */
async function askUntilUnderstood(io: ApprovalPrompts, question: string): Promise<ApprovalAnswer | null> {
  for (;;) {
    const line = await io.prompt(question);
    if (line === null) return null;
    const answer = parseApprovalAnswer(line);
    if (answer) return answer;
    io.say(`"${line.trim()}" is not an answer: type y, n or a JSON object of the form's fields\n`);
  }
}

/** The run and its descendants that are waiting. */
async function waitingTree(engine: Engine, rootId: string): Promise<RunRecord[]> {
  const out: RunRecord[] = [];
  const root = await engine.store.getRun(rootId);
  const queue = root ? [root] : [];
  while (queue.length) {
    const run = queue.shift()!;
    if (run.status === "waiting") out.push(run);
    if (run.status === "waiting" || run.status === "running" || run.status === "pending")
      queue.push(...(await engine.store.listRuns({ parentId: run.id, limit: 1_000 })));
  }
  return out;
}
