/**
 * Complete-and-claim-next in one round trip: a worker's batch of final outcomes (perhaps with
 * the checkpoints that led to them, `checkpoints-and-ends.ts`) and the claim for the slots they
 * free (the usual batch of a busy worker) is one transaction sent in one socket write: BEGIN,
 * the fenced finishing statement, a claim statement that needs nothing after it, and the
 * COMMIT. Nothing waits for an answer before the COMMIT is sent, so the claim may only take
 * runs that need no further statement: no concurrency key (counted under a lock in statements
 * of their own) and never claimed before (no steps to load). Other candidates come back locked
 * but not leased; the store then claims the slots left in a transaction of its own.
 */
import type pg from "pg";
import type { Db } from "./db.js";
import { prepared } from "./prepared.js";
import type { ClaimedRun, ClaimRequest, Command, CommandResult } from "../types.js";
import { CANDIDATES, CLAIM_SETUP, leaseSet, positions } from "./claim.js";
import { completionsAlone, FINISH_ALONE, finishedRuns, completionParams } from "./finish.js";
import { rawToRun } from "./rows.js";
import {
  checkpointsAndEnds,
  type SaveAndEndRow,
  saveAndEndStatement,
  type SavesAndEnds,
} from "./checkpoints-and-ends.js";

type Completion = Extract<Command, { verb: "complete" }>;
type Claim = Extract<Command, { verb: "claim" }>;

/**
 * Leases the candidates without a concurrency key and never claimed before; every candidate
 * comes back, the others with a null `id`, each with its place in claim order (`k_pos`;
 * parameters as `CLAIM_KEYLESS` in `claim.ts`). Like `CLAIM_KEYLESS`, the leased rows come from
 * the UPDATE's RETURNING and the others are appended, not joined: right after a burst comes due
 * the planner would join the two in a nested loop.
 */
const CLAIM_FIRST = `WITH k AS (SELECT c.*, row_number() OVER () AS pos FROM (${CANDIDATES}) c),
u AS (UPDATE runs SET ${leaseSet("$7", "$8", "$6")}
  FROM k WHERE runs.seq = k.seq AND k.concurrency_key IS NULL AND k.claims = 0
  RETURNING k.pos AS k_pos, k.ready_at AS k_ready, runs.*, now_ms() AS now)
SELECT * FROM u
UNION ALL
SELECT k.pos, k.ready_at, (NULL::runs).*, NULL::bigint FROM k WHERE k.concurrency_key IS NOT NULL OR k.claims <> 0`;

/**
 * A batch of final outcomes (as `completionsAlone`), or of checkpoints and final outcomes (as
 * `checkpointsAndEnds`), followed by the claim riding with them; null for any other batch.
 */
export function completionsThenClaim(
  commands: Command[],
): { ends: Completion[]; claim: Claim } | { pairs: SavesAndEnds; claim: Claim } | null {
  const last = commands[commands.length - 1];
  if (commands.length < 2 || last?.verb !== "claim") return null;
  const before = commands.slice(0, -1);
  const ends = completionsAlone(before);
  if (ends) return { ends, claim: last };
  const pairs = checkpointsAndEnds(before);
  return pairs ? { pairs, claim: last } : null;
}

/** What {@link applyCompletionsThenClaim} answers. */
export interface CompletedThenClaimed {
  /** One per command, the claim's last. */
  results: CommandResult[];
  /** Slots the claim left for the store to claim on its own: candidates it could not take were passed over. */
  left: number;
}

/**
 * Applies {@link completionsThenClaim} in one round trip (`notify` sent when a run ended, as
 * `applyCompletions`). A stale claim's run is left alone and answered `fenced`.
 */
export async function applyCompletionsThenClaim(
  db: Db,
  batch: NonNullable<ReturnType<typeof completionsThenClaim>>,
  notify: { channel: string; payload: string },
): Promise<CompletedThenClaimed> {
  const req = batch.claim.request;
  const claiming = req.limit > 0 && req.workflows.length > 0;
  const first = firstStatement(batch, notify);
  const statements = [first.statement];
  if (claiming) statements.push({ ...prepared(CLAIM_FIRST, claimParams(req)), rowMode: "array" } as pg.QueryConfig);
  const [finished, claimed] = await db.pipelined(statements, CLAIM_SETUP);
  const results = first.answer(finished!.rows);
  const { runs, passed } = claimed ? readClaim(claimed) : { runs: [], passed: false };
  results.push({ ok: true, claimed: runs });
  return { results, left: passed ? req.limit - runs.length : 0 };
}

type FinishedRow = { id: string; outstanding: number; finished_at: number };

/** The statement that writes what comes before the claim, and how its rows answer those commands. */
function firstStatement(
  batch: NonNullable<ReturnType<typeof completionsThenClaim>>,
  notify: { channel: string; payload: string },
): { statement: pg.QueryConfig; answer(rows: pg.QueryResultRow[]): CommandResult[] } {
  if ("pairs" in batch) {
    const { statement, answer } = saveAndEndStatement(batch.pairs, notify);
    return { statement, answer: (rows) => answer(rows as SaveAndEndRow[]) };
  }
  const { ends } = batch;
  const finish = completionParams(ends);
  return {
    statement: prepared(FINISH_ALONE, [...finish.params, notify.channel, notify.payload]),
    answer: (rows) => finishedRuns(ends, finish, rows as FinishedRow[]),
  };
}

/** `CLAIM_FIRST`'s parameters. */
function claimParams(req: ClaimRequest): unknown[] {
  return [
    [...req.workflows],
    req.queues ? [...req.queues] : null,
    req.limit,
    req.server ? `@${req.server}` : null,
    [],
    req.version ?? null,
    req.workerId,
    req.leaseMs,
  ];
}

/** The runs `CLAIM_FIRST` leased (first claims: no steps), and whether it passed over any candidate. */
function readClaim(result: pg.QueryResult): { runs: ClaimedRun[]; passed: boolean } {
  const rows = result.rows as unknown[][];
  if (rows.length === 0) return { runs: [], passed: false };
  const col = positions(result.fields);
  // Back in claim order.
  rows.sort((a, b) => Number(a[col.k_pos!]) - Number(b[col.k_pos!]));
  const runs: ClaimedRun[] = [];
  for (const v of rows) {
    if (v[col.id!] === null) continue;
    const run = rawToRun(v, col);
    runs.push({
      run,
      token: v[col.claims!] as number,
      steps: [],
      claimedAt: v[col.now!] as number,
      dueAt: v[col.k_ready!] as number,
    });
  }
  return { runs, passed: runs.length < rows.length };
}
