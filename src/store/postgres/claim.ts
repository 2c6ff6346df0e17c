/**
 * Claiming runnable runs with `FOR UPDATE SKIP LOCKED`: concurrent workers never
 * wait on each other's candidates and never take the same run. Runs with a
 * concurrency key are counted under a per-key advisory lock, so two workers on two
 * machines cannot both take the last slot of a key.
 */
import type pg from "pg";
import { prepared } from "./prepared.js";
import type { ClaimedRun, ClaimRequest, RunRecord } from "../types.js";
import { LOCK_CLASS } from "./migrate.js";
import { rawToRun, type RunRow, type StepRow, toRun, toStep } from "./rows.js";

/**
 * Session settings of a transaction that claims (sent with its BEGIN). With sorting
 * disabled the planner reads candidates in the claim-order index and stops at the
 * limit, whatever the table's statistics say: right after a burst of enqueues, before
 * autovacuum has analysed `runs`, it would otherwise sort every due run for each claim
 * (12 ms for 5,000 runs instead of 0.1 ms). Sorts the transaction's other statements
 * need still run; only the choice between a sort and an ordered index changes.
 */
export const CLAIM_SETUP = ["SET LOCAL enable_sort = off"];

/** Runs holding a slot of `k`'s key at `now`: running, or started within its window. */
const IN_USE = `(SELECT count(*) FROM runs r2 WHERE r2.concurrency_key = k.concurrency_key AND r2.seq <> k.seq
  AND (r2.status = 'running' OR (k.concurrency_window_ms IS NOT NULL AND r2.started_at >= now_ms() - k.concurrency_window_ms)))`;

/**
 * Due runs a claim may take, best first, locked (`$1` workflows, `$2` queues or null, `$3` limit,
 * `$4` `@server` or null, `$5` seqs already seen by this claim, `$6` the worker's code version or
 * null: with one, only runs not yet pinned or pinned to it).
 */
export const CANDIDATES = `SELECT k.seq, k.concurrency_key, k.concurrency_limit, k.concurrency_window_ms, k.ready_at, k.claims FROM runs k
  WHERE k.ready_at <= now_ms() AND k.status IN ('pending', 'waiting') AND k.workflow = ANY($1::text[])
    AND ($2::text[] IS NULL OR k.queue = ANY($2::text[]))
    AND ($2::text[] IS NOT NULL OR $4::text IS NULL OR strpos(k.queue, '@') = 0 OR substr(k.queue, strpos(k.queue, '@')) = $4)
    AND (k.concurrency_key IS NULL OR ${IN_USE} < k.concurrency_limit)
    AND NOT (k.seq = ANY($5::bigint[]))
    AND ($6::text IS NULL OR k.version IS NULL OR k.version = $6::text)
  ORDER BY k.priority DESC, k.ready_at, k.seq LIMIT $3 FOR UPDATE SKIP LOCKED`;

interface Candidate {
  seq: number;
  claims?: number;
  concurrency_key: string | null;
  concurrency_limit: number | null;
  concurrency_window_ms: number | null;
  ready_at: number;
}

/** What a claim sets on the runs it takes, from the parameters holding the worker, the lease ms and the worker's version. */
export const leaseSet = (worker: string, leaseMs: string, version: string) =>
  `status = 'running', claims = runs.claims + 1, lease_owner = ${worker}, lease_expires_at = now_ms() + ${leaseMs}::bigint,
  lease_ms = ${leaseMs}::bigint, lease_noticed_at = NULL,
  ready_at = NULL, started_at = COALESCE(started_at, now_ms()), updated_at = now_ms(),
  version = COALESCE(version, ${version}::text, (SELECT w.version FROM workflows w WHERE w.name = runs.workflow))`;

/**
 * The first round of a claim in one round trip: the candidates, of which those
 * without a concurrency key are leased at once (nothing limits them, and there are
 * no more candidates than wanted). Keyed candidates come back locked but not
 * leased (`id` null), for {@link withinLimits}; `k_pos` is each candidate's place in
 * claim order. Parameters as {@link CANDIDATES}, then `$7` worker and `$8` lease ms.
 *
 * The leased runs carry their candidate's columns from the UPDATE's own RETURNING, and the
 * keyed ones are appended (`UNION ALL`), instead of joining the candidates to the leased
 * runs: right after a burst of timers comes due, the statistics still say none is due, the
 * planner expects one row on each side and joins them in a nested loop, 5,000 x 5,000
 * comparisons for a claim of 5,000 (4.8-6.5 s where the claim now takes about 0.5 s).
 */
const CLAIM_KEYLESS = `WITH k AS (SELECT c.*, row_number() OVER () AS pos FROM (${CANDIDATES}) c),
u AS (UPDATE runs SET ${leaseSet("$7", "$8", "$6")}
  FROM k WHERE runs.seq = k.seq AND k.concurrency_key IS NULL
  RETURNING k.pos AS k_pos, k.seq AS k_seq, k.concurrency_key AS k_key, k.concurrency_limit AS k_limit,
    k.concurrency_window_ms AS k_window, k.ready_at AS k_ready, k.claims AS k_claims, runs.*, now_ms() AS now)
SELECT * FROM u
UNION ALL
SELECT k.pos, k.seq, k.concurrency_key, k.concurrency_limit, k.concurrency_window_ms, k.ready_at, k.claims, (NULL::runs).*, NULL::bigint
FROM k WHERE k.concurrency_key IS NOT NULL`;

type Leased = RunRow & { now: number };

/** A run this claim leased: its record, with what the answer needs beside it. */
interface Taken {
  seq: number;
  token: number;
  now: number;
  run: RunRecord;
}

/** Each column's position in a result's rows (`rowMode: "array"`). */
export function positions(fields: ReadonlyArray<{ name: string }>): Record<string, number> {
  const c: Record<string, number> = {};
  fields.forEach((f, i) => (c[f.name] = i));
  return c;
}

/**
 * What the store last saw of its claims: `plain` while they met neither a candidate with a
 * concurrency key nor one claimed before (see `finish-and-claim.ts`, which only takes such runs).
 */
export interface ClaimShape {
  plain: boolean;
}

/** Leases up to `req.limit` runs inside the caller's transaction; records in `shape` what kind of runs it met. */
export async function claimRuns(
  c: pg.ClientBase,
  req: ClaimRequest,
  audit: boolean,
  shape?: ClaimShape,
): Promise<ClaimedRun[]> {
  const queues = req.queues ? [...req.queues] : null;
  const server = req.server ? `@${req.server}` : null;
  const version = req.version ?? null;
  // Lock only as many rows as are still wanted, so concurrent claimers are not starved by
  // rows one of them locked and then left; runs held back by a concurrency key are
  // skipped and the next ones read (a few rounds at most).
  const chosen: number[] = [];
  const passed: number[] = [];
  const used = new Map<string, number>();
  const taken: Taken[] = [];
  /** Each chosen run's due time: the claim clears ready_at. */
  const dueAt = new Map<number, number>();
  let plain = true;
  for (let round = 0; round < 4 && chosen.length < req.limit; round++) {
    const want = req.limit - chosen.length;
    const seen = [...chosen, ...passed];
    let candidates: Candidate[];
    let picked: number[];
    if (round === 0) {
      // Rows as arrays: pg builds an object per row by copying a 39-key template, which cost
      // more than the claim's statement on a busy worker (the runs are mapped once, below).
      const first = await c.query<unknown[]>({
        ...prepared(CLAIM_KEYLESS, [
          [...req.workflows],
          queues,
          want,
          server,
          seen,
          version,
          req.workerId,
          req.leaseMs,
        ]),
        rowMode: "array",
      });
      const col = first.rows.length ? positions(first.fields) : {};
      // Back in claim order (the leased runs come first).
      first.rows.sort((a, b) => Number(a[col.k_pos!]) - Number(b[col.k_pos!]));
      candidates = first.rows.map((v) => ({
        seq: v[col.k_seq!] as number,
        concurrency_key: v[col.k_key!] as string | null,
        concurrency_limit: v[col.k_limit!] as number | null,
        concurrency_window_ms: v[col.k_window!] as number | null,
        ready_at: v[col.k_ready!] as number,
        claims: v[col.k_claims!] as number,
      }));
      const keyless: number[] = [];
      for (const v of first.rows) {
        if (v[col.id!] === null) continue;
        const run = rawToRun(v, col);
        taken.push({ seq: run.seq, token: v[col.claims!] as number, now: v[col.now!] as number, run });
        keyless.push(run.seq);
      }
      const keyed = await withinLimits(
        c,
        candidates.filter((k) => k.concurrency_key !== null),
        want - keyless.length,
        used,
      );
      const took = new Set([...keyless, ...keyed]);
      picked = candidates.filter((k) => took.has(k.seq)).map((k) => k.seq);
    } else {
      ({ rows: candidates } = await c.query<Candidate>(
        prepared(CANDIDATES, [[...req.workflows], queues, want, server, seen, version]),
      ));
      picked = await withinLimits(c, candidates, want, used);
    }
    chosen.push(...picked);
    if (candidates.some((k) => k.concurrency_key !== null || (k.claims ?? 0) > 0)) plain = false;
    for (const k of candidates) dueAt.set(k.seq, k.ready_at);
    const took = new Set(picked);
    for (const k of candidates) if (!took.has(k.seq)) passed.push(k.seq);
    if (candidates.length < want || picked.length === candidates.length) break;
  }
  if (shape) shape.plain = plain;
  if (chosen.length === 0) return [];
  const leased = new Set(taken.map((t) => t.seq));
  const rest = chosen.filter((seq) => !leased.has(seq));
  if (rest.length) {
    const more = await c.query<Leased>(
      prepared(
        `UPDATE runs SET ${leaseSet("$2", "$3", "$4")} WHERE seq = ANY($1::bigint[]) RETURNING runs.*, now_ms() AS now`,
        [rest, req.workerId, req.leaseMs, version],
      ),
    );
    for (const r of more.rows) taken.push({ seq: r.seq, token: r.claims, now: r.now, run: toRun(r) });
  }
  // Steps are only ever written under a claim, so a first claim has none to load.
  const again = taken.filter((t) => t.token > 1).map((t) => t.run.id);
  const steps = new Map<string, StepRow[]>();
  if (again.length) {
    const s = await c.query<StepRow>(
      "SELECT * FROM steps WHERE run_id = ANY($1::text[]) ORDER BY run_id, position, started_at",
      [again],
    );
    for (const st of s.rows) {
      let list = steps.get(st.run_id);
      if (!list) steps.set(st.run_id, (list = []));
      list.push(st);
    }
  }
  if (audit) {
    await c.query(
      "INSERT INTO claim_log (run_id, token, worker, claimed_at) SELECT u.id, u.token, $3, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint FROM unnest($1::text[], $2::int[]) u(id, token)",
      [taken.map((t) => t.run.id), taken.map((t) => t.token), req.workerId],
    );
  }
  const order = new Map(chosen.map((seq, i) => [seq, i]));
  taken.sort((a, b) => order.get(a.seq)! - order.get(b.seq)!);
  return taken.map((t) => ({
    run: t.run,
    token: t.token,
    steps: (steps.get(t.run.id) ?? []).map(toStep),
    claimedAt: t.now,
    dueAt: dueAt.get(t.seq)!,
  }));
}

/**
 * Picks candidates in order, at most `limit`, keeping every concurrency key within
 * its limit. Keys are locked (advisory, transaction-scoped, in sorted order) and
 * counted the first time they are seen, so the count includes claims other workers
 * just committed; `used` carries the counts across rounds of one claim.
 */
async function withinLimits(
  c: pg.ClientBase,
  candidates: Candidate[],
  limit: number,
  used: Map<string, number>,
): Promise<number[]> {
  const keys = [
    ...new Set(
      candidates.flatMap((k) => (k.concurrency_key === null || used.has(k.concurrency_key) ? [] : [k.concurrency_key])),
    ),
  ].sort();
  if (keys.length) {
    await c.query("SELECT pg_advisory_xact_lock($1, hashtext(k)) FROM unnest($2::text[]) k ORDER BY k", [
      LOCK_CLASS + 1,
      keys,
    ]);
    const windows = keys.map((key) => candidates.find((k) => k.concurrency_key === key)!.concurrency_window_ms);
    const { rows } = await c.query<{ key: string; n: number }>(
      `SELECT u.key, (SELECT count(*) FROM runs r2 WHERE r2.concurrency_key = u.key
         AND (r2.status = 'running' OR (u.win IS NOT NULL AND r2.started_at >= now_ms() - u.win)))::int AS n
       FROM unnest($1::text[], $2::bigint[]) u(key, win)`,
      [keys, windows],
    );
    for (const r of rows) used.set(r.key, r.n);
  }
  const chosen: number[] = [];
  for (const k of candidates) {
    if (chosen.length >= limit) break;
    if (k.concurrency_key !== null) {
      const n = used.get(k.concurrency_key) ?? 0;
      if (n >= (k.concurrency_limit ?? 1)) continue;
      used.set(k.concurrency_key, n + 1);
    }
    chosen.push(k.seq);
  }
  return chosen;
}
