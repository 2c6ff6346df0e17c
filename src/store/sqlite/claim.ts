import type { ClaimedRun, ClaimRequest } from "../types.js";
import type { RunRecord } from "../types.js";
import { rawToRun, type StepRow, toStep } from "./rows.js";
import type { Statements } from "./statements.js";

/** The claim-order index (migration 8) holds exactly the runs a claim may take once they are due. */
const QUEUED = "runs INDEXED BY runs_claim_order WHERE ready_at IS NOT NULL AND status IN ('pending', 'waiting')";
/** The highest priority among the queued runs; with `AND priority < ?`, the next one below. */
const TOP = `SELECT priority FROM ${QUEUED} ORDER BY priority DESC LIMIT 1`;
const BELOW = `SELECT priority FROM ${QUEUED} AND priority < ? ORDER BY priority DESC LIMIT 1`;
/** Takes the priority, `now` and the workflow names. */
const CLAIMABLE = `${QUEUED} AND priority = ? AND ready_at <= ? AND workflow IN (SELECT value FROM json_each(?))`;
/** Runs holding a slot of the candidate's concurrency key: running, or started within its window. Takes `now`. */
const CONCURRENCY_IN_USE = `SELECT COUNT(*) FROM runs r2 WHERE r2.concurrency_key = runs.concurrency_key AND r2.seq != runs.seq
  AND (r2.status = 'running' OR (runs.concurrency_window_ms IS NOT NULL AND r2.started_at >= ? - runs.concurrency_window_ms))`;

const IN_USE = `SELECT concurrency_limit AS lim, (${CONCURRENCY_IN_USE}) AS used FROM runs WHERE seq = ?`;
const TAKE = `UPDATE runs SET status = 'running', claims = claims + 1, lease_owner = ?, lease_expires_at = ?, lease_ms = ?, lease_noticed_at = NULL, ready_at = NULL,
     started_at = COALESCE(started_at, ?), updated_at = ?,
     version = COALESCE(version, ?, (SELECT w.version FROM workflows w WHERE w.name = runs.workflow))`;
const TAKE_ONE = `${TAKE} WHERE seq = ? RETURNING *`;
const TAKE_MANY = `${TAKE} WHERE seq IN (SELECT value FROM json_each(?)) RETURNING *`;
const STEPS = "SELECT * FROM steps WHERE run_id = ? ORDER BY position";

/** The candidate query of one claim shape, by its (power of two) limit. */
interface ClaimSql {
  select(limit: number): string;
}

/**
 * The SQL texts of each claim shape, built once: a claim looks its statements up by these very
 * strings, whose hashes V8 then keeps, instead of hashing freshly built copies on every claim.
 */
const SHAPES = new Map<string, ClaimSql>();

function claimSql(scope: "queues" | "server" | "all", pinned: boolean): ClaimSql {
  const key = `${scope}${pinned ? "+pinned" : ""}`;
  let shape = SHAPES.get(key);
  if (!shape) {
    // Candidates skip concurrency keys already at their limit; more than `limit` are read when
    // runs sharing a key blocked each other within this batch (see claimRuns).
    // With `server` and no explicit queues: skip runs in other servers' local queues (`group@server`).
    const where =
      scope === "queues"
        ? " AND queue IN (SELECT value FROM json_each(?))"
        : scope === "server"
          ? " AND (instr(queue, '@') = 0 OR substr(queue, instr(queue, '@')) = ?)"
          : "";
    // With a worker's version: only runs not yet pinned or pinned to it.
    const version = pinned ? " AND (version IS NULL OR version = ?)" : "";
    const texts = new Map<number, string>();
    shape = {
      select(limit) {
        let text = texts.get(limit);
        if (text === undefined) {
          text = `SELECT seq, concurrency_key, ready_at FROM ${CLAIMABLE}${where}${version}
         AND (concurrency_key IS NULL OR (${CONCURRENCY_IN_USE}) < concurrency_limit)
       ORDER BY ready_at, seq LIMIT ${limit}`;
          texts.set(limit, text);
        }
        return text;
      },
    };
    SHAPES.set(key, shape);
  }
  return shape;
}

/**
 * Leases up to `req.limit` runnable runs (highest priority, then oldest), honouring
 * concurrency limits, and loads their checkpoints. Runs inside the caller's
 * IMMEDIATE transaction.
 *
 * Candidates are read one priority at a time, highest first (the priorities present
 * are found by skipping down the claim-order index), each a range of due runs in age
 * order: a claim reads about as many rows as it takes, however many runs are queued
 * or parked with a later timer.
 */
export function claimRuns(s: Statements, req: ClaimRequest, now: number): ClaimedRun[] {
  const workflows = JSON.stringify(req.workflows);
  const sql = claimSql(req.queues ? "queues" : req.server ? "server" : "all", !!req.version);
  // The LIMIT is written into the SQL, rounded up to a power of two (a few statements in all):
  // SQLite re-prepares a statement whose LIMIT is a bound parameter on every run, which cost
  // 20 times the claim's own reading when nothing was due.
  const select = (limit: number) => s.get(sql.select(2 ** Math.ceil(Math.log2(Math.max(1, limit)))));
  const top = s.get(TOP).pluck();
  const below = s.get(BELOW).pluck();
  const inUse = s.get(IN_USE);
  // Raw rows (arrays): the claimed runs are returned whole, and building them as objects costs more than the update.
  const take = s.raw(TAKE_ONE);
  const takeMany = s.raw(TAKE_MANY);
  const steps = s.get(STEPS);
  const scoped = [
    ...(req.queues ? [JSON.stringify(req.queues)] : req.server ? [`@${req.server}`] : []),
    ...(req.version ? [req.version] : []),
  ];
  type Candidate = { seq: number; concurrency_key: string | null; ready_at: number };
  const gather = (wanted: number): Candidate[] => {
    const found: Candidate[] = [];
    for (let p = top.get() as number | undefined; p !== undefined && found.length < wanted;) {
      const room = wanted - found.length;
      found.push(...(select(room).all(p, now, workflows, ...scoped, now) as Candidate[]).slice(0, room));
      p = below.get(p) as number | undefined;
    }
    return found;
  };
  // Runs with a concurrency key are taken one by one (each counts against the next); the others in one statement.
  const lease = [req.workerId, now + req.leaseMs, req.leaseMs, now, now, req.version ?? null] as const;
  const rows: Array<{ run: RunRecord; claims: number }> = [];
  const taken = (t: typeof take, v: unknown[]) => ({
    run: rawToRun(v, t.columns),
    claims: v[t.columns.claims!] as number,
  });
  const keyless: number[] = [];
  const seen = new Set<number>();
  let blocked = 0;
  const consider = (list: Candidate[]) => {
    for (const c of list) {
      if (rows.length + keyless.length >= req.limit) break;
      if (seen.has(c.seq)) continue;
      seen.add(c.seq);
      if (c.concurrency_key === null) {
        keyless.push(c.seq);
        continue;
      }
      const u = inUse.get(now, c.seq) as { lim: number; used: number };
      if (u.used < u.lim) rows.push(taken(take, take.stmt.get(...lease, c.seq) as unknown[]));
      else blocked++;
    }
  };
  // First as many candidates as slots; twice as many only when runs sharing a key blocked each
  // other within this batch (the later candidates may still be taken), as before.
  const candidates = gather(req.limit);
  consider(candidates);
  if (blocked > 0 && candidates.length === req.limit && rows.length + keyless.length < req.limit) {
    const more = gather(req.limit * 2).filter((c) => !seen.has(c.seq));
    candidates.push(...more);
    consider(more);
  }
  if (keyless.length)
    for (const v of takeMany.stmt.all(...lease, JSON.stringify(keyless)) as unknown[][]) rows.push(taken(takeMany, v));
  const order = new Map(candidates.map((c, i) => [c.seq, i]));
  rows.sort((a, b) => order.get(a.run.seq)! - order.get(b.run.seq)!);
  // The claim clears ready_at: the due time comes from the candidate row read before it.
  return rows.map(({ run, claims }) => ({
    run,
    token: claims,
    // Steps are only ever written under a claim, so a first claim has none.
    steps: claims === 1 ? [] : (steps.all(run.id) as StepRow[]).map(toStep),
    claimedAt: now,
    dueAt: candidates[order.get(run.seq)!]!.ready_at,
  }));
}

/**
 * The earliest due time among the queued runs of `workflows` (in `queues`), or null: in each
 * priority's range of the claim-order index, the first run of those workflows in due order (a
 * read stops there, however many runs are parked with later timers).
 */
export function nextReadyAt(s: Statements, workflows: readonly string[], queues?: readonly string[]): number | null {
  const scope = queues ? " AND queue IN (SELECT value FROM json_each(?))" : "";
  const first = s
    .get(
      `SELECT ready_at FROM ${QUEUED} AND priority = ? AND workflow IN (SELECT value FROM json_each(?))${scope}
       ORDER BY ready_at LIMIT 1`,
    )
    .pluck();
  const args = queues ? [JSON.stringify(workflows), JSON.stringify(queues)] : [JSON.stringify(workflows)];
  const below = s.get(BELOW).pluck();
  let next: number | null = null;
  for (
    let p = s.get(TOP).pluck().get() as number | undefined;
    p !== undefined;
    p = below.get(p) as number | undefined
  ) {
    const t = first.get(p, ...args) as number | undefined;
    if (t !== undefined && (next === null || t < next)) next = t;
  }
  return next;
}
