/**
 * Checkpoints and final outcomes in one statement. A one-step run's checkpoint written ahead
 * and its outcome (`worker/ahead-saves.ts`), or a busy worker's checkpoints with the runs its
 * last steps end, would take the general path (BEGIN, the fenced steps' upsert, the finishing
 * UPDATE, the COMMIT with its NOTIFY: three round trips). Here the batch is one statement with
 * data-modifying CTEs, run as its own transaction (one round trip): the leases still current
 * are locked in id order, only their runs' steps are written and only their runs end, and the
 * NOTIFY goes with it when a run ended. Each command is answered as the general path answers
 * it: a stale claim's checkpoint and outcome are both refused (`fenced`).
 */
import type pg from "pg";
import type { Db } from "./db.js";
import { leasePositions, LEASES_LOCKED, liveAt } from "./lease-fence.js";
import { prepared } from "./prepared.js";
import type { Command, CommandResult, Lease } from "../types.js";
import { stepColumns, UPSERT_STEPS } from "./checkpoints.js";
import { completionParams, finishFrom, FINISH_SET, finishedRuns, isLoneEnd } from "./finish.js";

type Save = Extract<Command, { verb: "saveSteps" }>;
type Completion = Extract<Command, { verb: "complete" }>;

/** A batch {@link checkpointsAndEnds} accepts: its commands, and those split by verb. */
export interface SavesAndEnds {
  commands: Array<Save | Completion>;
  saves: Save[];
  ends: Completion[];
  /** One lease per run of the batch. */
  leases: Lease[];
}

/**
 * The commands of a batch made of checkpoints (`saveSteps`) and final outcomes (as
 * `completionsAlone` takes them), in which a run has at most one of each, its checkpoint before
 * its outcome and under the same claim; null for any other batch (which keeps the general path).
 */
export function checkpointsAndEnds(commands: readonly Command[]): SavesAndEnds | null {
  const saves: Save[] = [];
  const ends: Completion[] = [];
  /** Per run: the claim's token, and whether its outcome was met. */
  const runs = new Map<string, { token: number; ended: boolean }>();
  for (const cmd of commands) {
    const end = isLoneEnd(cmd);
    if (cmd.verb !== "saveSteps" && !end) return null;
    const { runId, token } = cmd.lease;
    const seen = runs.get(runId);
    // A second checkpoint, a second outcome, or anything after the outcome: the general path orders them.
    if (seen && (seen.ended || !end || seen.token !== token)) return null;
    runs.set(runId, { token, ended: end });
    if (end) ends.push(cmd);
    else saves.push(cmd as Save);
  }
  return {
    commands: commands as SavesAndEnds["commands"],
    saves,
    ends,
    leases: [...runs].map(([runId, { token }]) => ({ runId, token })),
  };
}

/** The outcomes' rows: parameters after the steps' 13 and the leases' 2, and each one's lease position (`$24`). */
const ENDS_FROM = finishFrom(16, "$24");

/**
 * The steps' upsert (`$1`–`$13`, `$23` their lease positions) and the finishing UPDATE
 * (`$16`–`$20`, `$24`) of the runs whose lease (`$14` ids, `$15` tokens) is current, locked first
 * in id order (`lease-fence.ts`: the writes read what `f` found, so they wait for its locks); a
 * row per live run (`ended` false) and one per run whose outcome was written (`ended`), with the
 * NOTIFY (`$21` channel, `$22` payload) when one was. Two lists, not a join: a join of the two
 * sets plans on row estimates (see `lease-fence.ts`). The finishing UPDATE's only condition on
 * the run is its id (the fence's check was made on the row `f` locked and holds): a constant
 * status in it let the plan kept for every batch read every running run for each outcome.
 */
const SAVE_AND_END = `WITH ${LEASES_LOCKED},
  e AS (
    UPDATE runs r SET ${FINISH_SET} FROM ${ENDS_FROM} WHERE r.id = u.id AND ${liveAt("u.lease")}
    RETURNING r.id, r.outstanding, r.finished_at
  ), w AS (${UPSERT_STEPS(`WHERE ${liveAt("u.lease")}`, "$23")})
  SELECT f.id, false AS ended, NULL::int AS outstanding, NULL::bigint AS finished_at, NULL::text AS notified
    FROM f WHERE f.live
  UNION ALL
  SELECT e.id, true, e.outstanding, e.finished_at, pg_notify($21, $22)::text FROM e`;

/** What {@link SAVE_AND_END} returns: a row per live run, and one more per run it ended. */
export interface SaveAndEndRow {
  id: string;
  ended: boolean;
  outstanding: number | null;
  finished_at: number | null;
}

/** {@link SAVE_AND_END} for `batch`, sending `notify` (channel and payload) when it ends a run. */
export function saveAndEndStatement(
  batch: SavesAndEnds,
  notify: { channel: string; payload: string },
): { statement: pg.QueryConfig; answer(rows: readonly SaveAndEndRow[]): CommandResult[] } {
  const finish = completionParams(batch.ends);
  const steps = stepColumns(batch.saves.map((s) => ({ runId: s.lease.runId, steps: s.steps })));
  const statement = prepared(SAVE_AND_END, [
    ...steps,
    batch.leases.map((l) => l.runId),
    batch.leases.map((l) => l.token),
    ...finish.params,
    notify.channel,
    notify.payload,
    leasePositions(batch.leases, steps[0]!),
    leasePositions(
      batch.leases,
      finish.sorted.map((f) => f.runId),
    ),
  ]);
  return {
    statement,
    // A run missing from the rows was fenced: neither its steps nor its outcome were written.
    answer(rows) {
      const live = new Set(rows.map((r) => r.id));
      const ended = rows.filter((r) => r.ended) as Array<{ id: string; outstanding: number; finished_at: number }>;
      const finished = new Map<string, CommandResult>();
      finishedRuns(batch.ends, finish, ended).forEach((r, i) => finished.set(batch.ends[i]!.lease.runId, r));
      return batch.commands.map((cmd): CommandResult => {
        if (cmd.verb === "complete") return finished.get(cmd.lease.runId)!;
        return live.has(cmd.lease.runId) ? { ok: true } : { ok: false, fenced: true };
      });
    },
  };
}

/**
 * Applies {@link checkpointsAndEnds} as one statement, its own transaction (Postgres commits it
 * before answering: no BEGIN or COMMIT, one round trip), sending `notify` (channel and payload)
 * when it ended a run. A stale claim's steps are not written and its run is left alone.
 */
export async function applyCheckpointsAndEnds(
  db: Db,
  batch: SavesAndEnds,
  notify: { channel: string; payload: string },
): Promise<CommandResult[]> {
  const { statement, answer } = saveAndEndStatement(batch, notify);
  return answer((await db.statement<SaveAndEndRow>(statement)).rows);
}
