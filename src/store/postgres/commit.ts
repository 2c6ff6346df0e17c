/**
 * Group commit on Postgres: a batch of commands from many runs is applied in one
 * transaction with a handful of multi-row statements (arrays unnested), one per
 * verb, instead of one statement per command. Commands keep their order where it
 * matters: the batch is cut into segments in which no run appears twice, and each
 * segment is applied verb by verb (fence, heartbeat, create runs, steps, suspend,
 * complete, logs). Every command is answered on its own.
 */
import type pg from "pg";
import { prepared } from "./prepared.js";
import type { ChildSpec, ClaimedRun, Command, CommandResult, Lease, LogLine } from "../types.js";
import { upsertSteps } from "./checkpoints.js";
import { type ClaimShape, claimRuns } from "./claim.js";
import { insertRuns, type NewRun } from "./enqueue.js";
import { type Finish, type FinishFollower, finishRuns, type Retry, retryRuns } from "./finish.js";
import { lockSignalEvents } from "./signal-lock.js";

type LeaseCommand = Extract<Command, { lease: Lease }>;

/** What a fence check reads of a run (locked until the transaction ends). */
interface FenceRow {
  id: string;
  status: string;
  claims: number;
  parent_id: string | null;
  parent_key: string | null;
  root_id: string;
}

/** Settings of one group commit. */
export interface CommitContext {
  /** Write `claim_log` rows. */
  audit: boolean;
  /** Where the claims record what kind of runs they met. */
  claimShape?: ClaimShape;
}

/** Applies `commands` inside the caller's transaction; returns the answers and whether workers should be woken. */
export async function applyCommands(
  c: pg.ClientBase,
  commands: Command[],
  ctx: CommitContext,
): Promise<{ results: CommandResult[]; wake: boolean }> {
  const results = new Array<CommandResult>(commands.length);
  let wake = false;
  const claims = new Claims(c, commands, results, ctx);
  const segs = segments(commands);
  for (let k = 0; k < segs.length; k++) {
    // The claims ride behind the last segment's finishing UPDATE when it is its last statement.
    const behind = k === segs.length - 1 && !ctx.audit ? claims : undefined;
    if (await applySegment(c, commands, segs[k]!, results, ctx, behind)) wake = true;
  }
  // Claims go last: they take the slots the batch freed and the runs it enqueued.
  await claims.finish();
  return { results, wake };
}

/**
 * The batch's claim commands, run after everything else in the batch: either sent behind
 * the last finishing UPDATE (pipelined, see {@link FinishFollower}) or on their own at
 * the end. When the finish then resolved parents (re-queueing some), the claims run again
 * for the slots they left, so a parent a child just released is still claimed at once.
 */
class Claims implements FinishFollower {
  private started: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly c: pg.ClientBase,
    private readonly commands: Command[],
    private readonly results: CommandResult[],
    private readonly ctx: CommitContext,
  ) {}

  start(): Promise<void> {
    this.started ??= this.run();
    return this.started;
  }

  parentsChanged(): void {
    this.again = true;
  }

  async finish(): Promise<void> {
    if (!this.started) return this.start();
    await this.started;
    if (this.again) await this.run();
  }

  /** Runs each claim for the slots it has not filled yet. */
  private async run(): Promise<void> {
    for (let i = 0; i < this.commands.length; i++) {
      const cmd = this.commands[i]!;
      if (cmd.verb !== "claim") continue;
      const req = cmd.request;
      const done = this.results[i];
      const have = done?.ok ? (done.claimed ?? []) : [];
      const limit = req.limit - have.length;
      const more =
        limit <= 0 || req.workflows.length === 0
          ? []
          : await claimRuns(this.c, { ...req, limit }, this.ctx.audit, this.ctx.claimShape);
      this.results[i] = { ok: true, claimed: [...have, ...more] };
    }
  }
}

/**
 * Splits command indexes into segments in which no run id repeats, except a run's `complete`
 * right behind its own `saveSteps` (a checkpoint written ahead with the outcome, see
 * `worker/ahead-saves.ts`): a segment upserts its steps before it finishes its runs, so the pair
 * keeps its order in one segment instead of cutting a busy batch into one segment per run.
 */
export function segments(commands: Command[]): number[][] {
  const out: number[][] = [];
  let current: number[] = [];
  /** Per run id in the current segment: whether its only command so far is a `saveSteps`. */
  let seen = new Map<string, boolean>();
  commands.forEach((cmd, i) => {
    const ids = touched(cmd);
    if (ids.some((id) => seen.has(id) && !(cmd.verb === "complete" && seen.get(id)))) {
      out.push(current);
      current = [];
      seen = new Map();
    }
    for (const id of ids) seen.set(id, cmd.verb === "saveSteps" && !seen.has(id));
    current.push(i);
  });
  if (current.length) out.push(current);
  return out;
}

function touched(cmd: Command): string[] {
  switch (cmd.verb) {
    case "enqueue":
      return [cmd.request.id];
    case "suspend":
      return [cmd.lease.runId, ...cmd.children.map((ch) => ch.id)];
    case "saveSteps":
    case "complete":
      return [cmd.lease.runId];
    default:
      return [];
  }
}

async function applySegment(
  c: pg.ClientBase,
  all: Command[],
  seg: number[],
  results: CommandResult[],
  ctx: CommitContext,
  behind?: FinishFollower,
): Promise<boolean> {
  let wake = false;
  const leased = seg.filter((i) => "lease" in all[i]!);
  // A segment whose leased commands all end their runs or save checkpoints (a busy worker's
  // usual batch) fences in the finishing UPDATE and the steps' upsert themselves instead of a
  // locking read first.
  const inUpdate = leased.length > 0 && leased.every((i) => isTerminal(all[i]!) || all[i]!.verb === "saveSteps");
  const fence = inUpdate
    ? new Map<string, FenceRow>()
    : await lockRuns(
        c,
        leased.map((i) => (all[i] as LeaseCommand).lease.runId),
      );
  const live = (i: number) => {
    const lease = (all[i] as LeaseCommand).lease;
    const row = fence.get(lease.runId);
    return row !== undefined && row.status === "running" && row.claims === lease.token;
  };
  if (!inUpdate) for (const i of leased) if (!live(i)) results[i] = { ok: false, fenced: true };
  let ok = inUpdate ? leased : leased.filter(live);

  // Logs first: a claim's last lines precede its own completion or suspension.
  await appendLogs(
    c,
    seg.flatMap((i) =>
      all[i]!.verb === "appendLogs" ? (all[i] as Extract<Command, { verb: "appendLogs" }>).lines : [],
    ),
  );

  await heartbeats(c, seg, all, results);

  // Children answered from the task cache are not created.
  const suspends = ok.filter((i) => all[i]!.verb === "suspend");
  const cacheHits = await cacheLookup(
    c,
    suspends.flatMap((i) => (all[i] as Extract<Command, { verb: "suspend" }>).children),
  );
  const newRuns: Array<{ index: number; run: NewRun }> = [];
  for (const i of seg) {
    const cmd = all[i]!;
    if (cmd.verb === "enqueue") newRuns.push({ index: i, run: { req: cmd.request } });
  }
  for (const i of suspends) {
    const cmd = all[i] as Extract<Command, { verb: "suspend" }>;
    const root = fence.get(cmd.lease.runId)!.root_id;
    for (const child of cmd.children) {
      if (!cacheHits.has(child.id))
        newRuns.push({
          index: i,
          run: { req: child, parent: { id: cmd.lease.runId, key: child.parentKey, rootId: root } },
        });
    }
  }
  const outcomes = await insertRuns(
    c,
    newRuns.map((n) => n.run),
    ctx.audit,
  );
  const created = new Map<number, number>();
  /** Per suspension, its children created leased to its worker (`claimFor`), answered as `claimed`. */
  const childClaims = new Map<number, ClaimedRun[]>();
  outcomes.forEach((o, k) => {
    const { index } = newRuns[k]!;
    if (all[index]!.verb === "enqueue") {
      results[index] = o.created ? { ok: true, enqueued: o.result } : o.result;
      if (o.created && !o.result.claimed) wake = true;
    } else if (o.created) {
      created.set(index, (created.get(index) ?? 0) + 1);
      if (o.result.claimed) {
        const list = childClaims.get(index);
        if (list) list.push(o.result.claimed);
        else childClaims.set(index, [o.result.claimed]);
      }
      wake = true;
    }
  });

  const checkpoints = ok.filter((i) => all[i]!.verb === "saveSteps" || all[i]!.verb === "suspend");
  const alive = await upsertSteps(
    c,
    checkpoints.map((i) => {
      const cmd = all[i] as Extract<Command, { verb: "saveSteps" | "suspend" }>;
      return { runId: cmd.lease.runId, steps: cmd.steps };
    }),
    inUpdate ? checkpoints.map((i) => (all[i] as LeaseCommand).lease) : null,
  );
  if (alive) {
    for (const i of checkpoints)
      if (!alive.has((all[i] as LeaseCommand).lease.runId)) results[i] = { ok: false, fenced: true };
    ok = ok.filter((i) => all[i]!.verb !== "saveSteps" || alive.has((all[i] as LeaseCommand).lease.runId));
  }
  if (cacheHits.size) await resolveFromCache(c, suspends, all, cacheHits);
  if (suspends.length) {
    const asPark = (i: number) => ({
      cmd: all[i] as Extract<Command, { verb: "suspend" }>,
      created: created.get(i) ?? 0,
    });
    const parks = suspends.filter((i) => !(all[i] as Extract<Command, { verb: "suspend" }>).keepClaim);
    await countChildren(
      c,
      suspends.filter((i) => (all[i] as Extract<Command, { verb: "suspend" }>).keepClaim).map(asPark),
    );
    await parkRuns(c, parks.map(asPark));
    await takeBufferedSignals(
      c,
      parks.map((i) => all[i] as Extract<Command, { verb: "suspend" }>),
    );
    wake = true;
  }

  const retries: Retry[] = [];
  const finishes: Finish[] = [];
  for (const i of ok) {
    const cmd = all[i]!;
    if (cmd.verb !== "complete") continue;
    const { runId, token } = cmd.lease;
    if (cmd.outcome.status === "retry") retries.push({ runId, error: cmd.outcome.error, delayMs: cmd.outcome.delayMs });
    else finishes.push({ runId, outcome: cmd.outcome, ...(inUpdate && { token, claimed: cmd.claimed }) });
  }
  await retryRuns(c, retries);
  const finished = await finishRuns(c, finishes, behind);
  for (const i of ok) {
    const cmd = all[i]!;
    const run = cmd.verb === "complete" ? finished.get(cmd.lease.runId) : undefined;
    if (run) results[i] = { ok: true, finished: run };
    else if (inUpdate && cmd.verb === "complete") results[i] = { ok: false, fenced: true };
  }
  if (inUpdate)
    ok = ok.filter((i) => all[i]!.verb === "saveSteps" || finished.has((all[i] as LeaseCommand).lease.runId));
  if (retries.length || finished.size) wake = true;
  if (ctx.audit)
    await releaseClaims(
      c,
      ok.filter((i) => all[i]!.verb !== "saveSteps").map((i) => (all[i] as LeaseCommand).lease),
      "released",
    );

  for (const [i, claimed] of childClaims) results[i] ??= { ok: true, claimed };
  for (const i of seg) results[i] ??= { ok: true };
  return wake;
}

function isTerminal(cmd: Command): boolean {
  return cmd.verb === "complete" && cmd.outcome.status !== "retry";
}

/** Locks the runs behind leases (in id order, so concurrent batches queue instead of deadlocking). */
async function lockRuns(c: pg.ClientBase, ids: string[]): Promise<Map<string, FenceRow>> {
  if (ids.length === 0) return new Map();
  const { rows } = await c.query<FenceRow>(
    prepared(
      "SELECT id, status, claims, parent_id, parent_key, root_id FROM runs WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE",
      [ids],
    ),
  );
  return new Map(rows.map((r) => [r.id, r]));
}

async function heartbeats(c: pg.ClientBase, seg: number[], all: Command[], results: CommandResult[]): Promise<void> {
  const beats = seg.filter((i) => all[i]!.verb === "heartbeat");
  if (beats.length === 0) return;
  const ids: string[] = [];
  const tokens: number[] = [];
  const ms: number[] = [];
  for (const i of beats) {
    const cmd = all[i] as Extract<Command, { verb: "heartbeat" }>;
    for (const l of cmd.leases) {
      ids.push(l.runId);
      tokens.push(l.token);
      ms.push(cmd.leaseMs);
    }
  }
  const alive = new Set<string>();
  if (ids.length) {
    const { rows } = await c.query<{ id: string; claims: number }>(
      `UPDATE runs r SET lease_expires_at = now_ms() + u.ms, lease_ms = u.ms, lease_noticed_at = NULL FROM unnest($1::text[], $2::int[], $3::bigint[]) u(id, token, ms)
       WHERE r.id = u.id AND r.claims = u.token AND r.status = 'running' RETURNING r.id, r.claims`,
      [ids, tokens, ms],
    );
    for (const r of rows) alive.add(`${r.id}\u0000${r.claims}`);
  }
  for (const i of beats) {
    const cmd = all[i] as Extract<Command, { verb: "heartbeat" }>;
    results[i] = {
      ok: true,
      lost: cmd.leases.filter((l) => !alive.has(`${l.runId}\u0000${l.token}`)).map((l) => l.runId),
    };
  }
}

/** For children with a cache key and TTL: the newest succeeded run with that key still within the TTL. */
async function cacheLookup(
  c: pg.ClientBase,
  children: ChildSpec[],
): Promise<Map<string, { id: string; result: string | null }>> {
  const cached = children.filter((ch) => ch.cacheKey && ch.cacheTtlMs);
  const hits = new Map<string, { id: string; result: string | null }>();
  if (cached.length === 0) return hits;
  const { rows } = await c.query<{ child: string; id: string; result: string | null }>(
    `SELECT u.child, h.id, h.result FROM unnest($1::text[], $2::text[], $3::bigint[]) u(child, key, ttl)
     CROSS JOIN LATERAL (SELECT id, result FROM runs WHERE cache_key = u.key AND status = 'succeeded' AND finished_at >= now_ms() - u.ttl
                         ORDER BY finished_at DESC LIMIT 1) h`,
    [cached.map((ch) => ch.id), cached.map((ch) => ch.cacheKey), cached.map((ch) => ch.cacheTtlMs)],
  );
  for (const r of rows) hits.set(r.child, { id: r.id, result: r.result });
  return hits;
}

async function resolveFromCache(
  c: pg.ClientBase,
  suspends: number[],
  all: Command[],
  hits: Map<string, { id: string; result: string | null }>,
): Promise<void> {
  const parents: string[] = [];
  const keys: string[] = [];
  const values: (string | null)[] = [];
  const childIds: string[] = [];
  for (const i of suspends) {
    const cmd = all[i] as Extract<Command, { verb: "suspend" }>;
    for (const ch of cmd.children) {
      const hit = hits.get(ch.id);
      if (!hit) continue;
      parents.push(cmd.lease.runId);
      keys.push(ch.parentKey);
      values.push(hit.result);
      childIds.push(hit.id);
    }
  }
  await c.query(
    `UPDATE steps s SET status = 'done', value = u.value, child_id = u.child, finished_at = now_ms()
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) u(run, key, value, child)
     WHERE s.run_id = u.run AND s.key = u.key AND s.status = 'pending'`,
    [parents, keys, values, childIds],
  );
}

/** Suspends that keep their claim (`keepClaim`): only their new children are counted; the runs stay running. */
async function countChildren(
  c: pg.ClientBase,
  writes: Array<{ cmd: Extract<Command, { verb: "suspend" }>; created: number }>,
): Promise<void> {
  if (writes.length === 0) return;
  await c.query(
    `UPDATE runs r SET outstanding = r.outstanding + u.created, updated_at = now_ms()
     FROM unnest($1::text[], $2::int[]) u(id, created) WHERE r.id = u.id`,
    [writes.map((w) => w.cmd.lease.runId), writes.map((w) => w.created)],
  );
}

/** Parks suspended runs: `waiting` with their new children counted, or straight back to `pending` if nothing is outstanding. */
async function parkRuns(
  c: pg.ClientBase,
  parks: Array<{ cmd: Extract<Command, { verb: "suspend" }>; created: number }>,
): Promise<void> {
  await c.query(
    `UPDATE runs r SET
       status = CASE WHEN u.await AND r.outstanding + u.created <= 0 THEN 'pending' ELSE 'waiting' END,
       ready_at = CASE WHEN u.await AND r.outstanding + u.created <= 0 THEN now_ms()
                       WHEN u.wake IS NULL THEN NULL ELSE now_ms() + u.wake END,
       outstanding = r.outstanding + u.created, lease_owner = NULL, lease_expires_at = NULL, updated_at = now_ms()
     FROM unnest($1::text[], $2::int[], $3::bigint[], $4::bool[]) u(id, created, wake, await) WHERE r.id = u.id`,
    [
      parks.map((p) => p.cmd.lease.runId),
      parks.map((p) => p.created),
      parks.map((p) => (p.cmd.wakeAfterMs === null ? null : Math.max(0, Math.round(p.cmd.wakeAfterMs)))),
      parks.map((p) => p.cmd.awaitChildren),
    ],
  );
}

/**
 * The waits just parked take buffered signals of their events (oldest unexpired first, each
 * once), under the per-event lock a buffered signal also takes (`lockSignalEvents`); a run whose
 * wait was answered is re-queued at once.
 */
async function takeBufferedSignals(
  c: pg.ClientBase,
  parks: Array<Extract<Command, { verb: "suspend" }>>,
): Promise<void> {
  const waits = parks.flatMap((p) =>
    p.steps
      .filter((s) => s.kind === "wait" && s.status === "pending" && s.event)
      .map((s) => ({ runId: p.lease.runId, key: s.key, event: s.event! })),
  );
  if (waits.length === 0) return;
  await lockSignalEvents(
    c,
    waits.map((w) => w.event),
  );
  const answered = new Set<string>();
  for (const w of waits) {
    const { rows } = await c.query(
      `WITH t AS (
         DELETE FROM signal_buffer WHERE seq = (
           SELECT seq FROM signal_buffer WHERE event = $1 AND expires_at > now_ms() ORDER BY seq LIMIT 1
         ) RETURNING payload
       )
       UPDATE steps s SET status = 'done', value = t.payload, finished_at = now_ms() FROM t
       WHERE s.run_id = $2 AND s.key = $3 AND s.status = 'pending' RETURNING s.run_id`,
      [w.event, w.runId, w.key],
    );
    if (rows.length) answered.add(w.runId);
  }
  if (answered.size)
    await c.query(
      "UPDATE runs SET status = 'pending', ready_at = now_ms(), updated_at = now_ms() WHERE id = ANY($1::text[]) AND status = 'waiting'",
      [[...answered]],
    );
}

/** Closes audit rows of claims that ended (`claim_log`). */
export async function releaseClaims(c: pg.ClientBase, leases: Lease[], how: string): Promise<void> {
  if (leases.length === 0) return;
  await c.query(
    `UPDATE claim_log l SET released_at = floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint, released_by = $3 FROM unnest($1::text[], $2::int[]) u(id, token)
     WHERE l.run_id = u.id AND l.token = u.token AND l.released_at IS NULL`,
    [leases.map((l) => l.runId), leases.map((l) => l.token), how],
  );
}

/** Appends log lines, dropping those of a claim that is no longer the run's current one. */
async function appendLogs(c: pg.ClientBase, lines: LogLine[]): Promise<void> {
  if (lines.length === 0) return;
  await c.query(
    `INSERT INTO logs (run_id, step_key, attempt, level, message, ts)
     SELECT u.run_id, u.step_key, u.attempt, u.level, u.message, u.ts
     FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::bigint[], $7::int[]) WITH ORDINALITY
       u(run_id, step_key, attempt, level, message, ts, token, n)
     WHERE u.token IS NULL OR EXISTS (SELECT 1 FROM runs r WHERE r.id = u.run_id AND r.status = 'running' AND r.claims = u.token)
     ORDER BY u.n`,
    [
      lines.map((l) => l.runId),
      lines.map((l) => l.stepKey),
      lines.map((l) => l.attempt),
      lines.map((l) => l.level),
      lines.map((l) => l.message),
      lines.map((l) => Math.round(l.ts)),
      lines.map((l) => l.token ?? null),
    ],
  );
}
