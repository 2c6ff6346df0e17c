import { type SerializedError, serializeError } from "../../core/serde.js";
import { RunIdConflictError } from "../../sdk/errors.js";
import { leasedRun, type ParentLink } from "../leased-run.js";
import { cancelledError } from "../run-errors.js";
import type {
  ChildSpec,
  ClaimedRun,
  EnqueueRequest,
  EnqueueResult,
  Lease,
  LogLine,
  RunOutcome,
  RunRecord,
  StepWrite,
} from "../types.js";
import { sameJson } from "./canonical.js";
import { rawToRun, type RunRow } from "./rows.js";
import type { Statements } from "./statements.js";

// Positional parameters: binding 30 values from an array costs half of looking up as many named
// properties of an object (about 4 µs per enqueue). The order is `insertArgs`'s.
const INSERT_RUN = `INSERT INTO runs (id, workflow, task, queue, payload, status, priority, ready_at, attempt, max_attempts,
  backoff_base, backoff_max, version, parent_id, parent_key, root_id, options, created_at, updated_at, claims, lease_owner,
  lease_expires_at, lease_ms, started_at, created_by, cache_key, concurrency_key, concurrency_limit, concurrency_window_ms)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?,
  ?, ?, COALESCE(?, (SELECT w.version FROM workflows w WHERE w.name = ? AND ? = 1)),
  ?, ?, ?, ?, ?, ?, ?, ?,
  ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The values of {@link INSERT_RUN}, in its order. */
function insertArgs(
  p: InsertRunParams & {
    status: string;
    readyAt: number | null;
    version: string | null;
    pinNow: number;
    claims: number;
    startedAt: number | null;
  },
): unknown[] {
  return [
    p.id,
    p.workflow,
    p.task,
    p.queue,
    p.payload,
    p.status,
    p.priority,
    p.readyAt,
    p.maxAttempts,
    p.backoffBase,
    p.backoffMax,
    p.version,
    p.workflow,
    p.pinNow,
    p.parentId,
    p.parentKey,
    p.rootId,
    p.options,
    p.now,
    p.now,
    p.claims,
    p.leaseOwner,
    p.leaseExpiresAt,
    p.leaseMs,
    p.startedAt,
    p.createdBy,
    p.cacheKey,
    p.concurrencyKey,
    p.concurrencyLimit,
    p.concurrencyWindowMs,
  ];
}

const INSERT_RUN_RETURNING = `${INSERT_RUN} RETURNING seq, version`;

/** Thrown inside a transaction to refuse one enqueue without aborting the batch. */
export class EnqueueConflict extends Error {
  constructor(readonly error: SerializedError) {
    super(error.message);
    this.name = "EnqueueConflict";
  }
}

/**
 * The write half of the SQLite store. Every method runs inside the caller's
 * transaction and uses `now` from the store's clock.
 */
export class SqliteWrites {
  constructor(private readonly s: Statements) {}

  /** Inserts a run, or returns the existing one for a repeated id with the same workflow and payload. */
  enqueue(req: EnqueueRequest, now: number, parent?: ParentLink): EnqueueResult {
    if (req.dedupe) {
      const existing = this.s.get("SELECT workflow, task, payload FROM runs WHERE id = ?").get(req.id) as
        { workflow: string; task: string | null; payload: string | null } | undefined;
      if (existing) {
        if (existing.workflow !== req.workflow || (existing.task ?? null) !== (req.task ?? null)) {
          throw new EnqueueConflict(conflict(req.id, `workflow ${JSON.stringify(existing.task ?? existing.workflow)}`));
        }
        if (!sameJson(existing.payload, req.payload))
          throw new EnqueueConflict(conflict(req.id, "a different payload"));
        return { id: req.id, deduplicated: true };
      }
    }
    const runAt = Math.max(req.runAt ?? now, 0);
    const claim = req.claimFor && runAt <= now ? req.claimFor : null;
    const params = {
      id: req.id,
      workflow: req.workflow,
      task: req.task ?? null,
      queue: req.queue,
      payload: req.payload,
      status: claim ? "running" : "pending",
      priority: req.priority ?? 0,
      readyAt: claim ? null : runAt,
      maxAttempts: req.maxAttempts,
      backoffBase: req.backoff.base,
      backoffMax: req.backoff.max,
      version: req.version ?? null,
      // A run created already claimed is pinned now, as a claim would pin it.
      pinNow: claim ? 1 : 0,
      parentId: parent?.id ?? null,
      parentKey: parent?.key ?? null,
      rootId: parent?.rootId ?? req.id,
      options: req.options ?? null,
      now,
      claims: claim ? 1 : 0,
      leaseOwner: claim?.workerId ?? null,
      leaseExpiresAt: claim ? now + claim.leaseMs : null,
      leaseMs: claim?.leaseMs ?? null,
      startedAt: claim ? now : null,
      createdBy: req.createdBy ?? null,
      cacheKey: req.cacheKey ?? null,
      concurrencyKey: req.concurrency?.key ?? null,
      concurrencyLimit: req.concurrency?.limit ?? null,
      concurrencyWindowMs: req.concurrency?.windowMs ?? null,
    };
    if (!claim) {
      this.s.get(INSERT_RUN).run(insertArgs(params));
      return { id: req.id, deduplicated: false };
    }
    // Created already leased to a local worker: one transaction instead of enqueue + claim. The
    // run is answered from what was written (reading the whole row back costs more than the insert).
    const row = this.s.get(INSERT_RUN_RETURNING).get(insertArgs(params)) as Pick<RunRow, "seq" | "version">;
    return {
      id: req.id,
      deduplicated: false,
      claimed: {
        run: leasedRun(req, parent, {
          seq: row.seq,
          version: row.version,
          createdAt: now,
          leaseExpiresAt: params.leaseExpiresAt,
        }),
        token: 1,
        steps: [],
        claimedAt: now,
        dueAt: now,
      },
    };
  }

  /** True when `lease` is still the run's current claim. */
  fence(lease: Lease): boolean {
    const stmt = this.s.get("SELECT 1 FROM runs WHERE id = ? AND status = 'running' AND claims = ?").pluck();
    return stmt.get(lease.runId, lease.token) !== undefined;
  }

  /** Inserts or replaces checkpoints. */
  writeSteps(runId: string, steps: StepWrite[], now: number): void {
    const stmt = this.s.get(
      `INSERT INTO steps (run_id, key, kind, target, status, value, error, child_id, event, wake_at, attempts, position, started_at, finished_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (run_id, key) DO UPDATE SET kind = excluded.kind, target = excluded.target, status = excluded.status,
         value = excluded.value, error = excluded.error, child_id = excluded.child_id, event = excluded.event,
         wake_at = COALESCE(excluded.wake_at, steps.wake_at), attempts = excluded.attempts, finished_at = excluded.finished_at`,
    );
    for (const st of steps) {
      stmt.run(
        runId,
        st.key,
        st.kind,
        st.target,
        st.status,
        st.value ?? null,
        st.error ? JSON.stringify(st.error) : null,
        st.childId ?? null,
        st.event ?? null,
        st.wakeAfterMs === undefined || st.wakeAfterMs === null ? null : now + st.wakeAfterMs,
        st.attempts ?? 1,
        st.position,
        st.startedAt === undefined ? now : Math.min(Math.round(st.startedAt), now),
        st.status === "pending" ? null : now,
      );
    }
  }

  /**
   * Creates children and parks the parent, or with `keepClaim` only counts them (see the `suspend`
   * command). Returns the claims of children created leased (`claimFor`), for their worker to run.
   */
  suspend(
    lease: Lease,
    rootId: string,
    children: ChildSpec[],
    wakeAfterMs: number | null,
    awaitChildren: boolean,
    now: number,
    keepClaim = false,
  ): ClaimedRun[] {
    let created = 0;
    const claimed: ClaimedRun[] = [];
    for (const child of children) {
      if (this.resolveFromCache(lease.runId, child, now)) continue;
      const r = this.enqueue(child, now, { id: lease.runId, key: child.parentKey, rootId });
      if (r.claimed) claimed.push(r.claimed);
      created++;
    }
    if (keepClaim) {
      this.s
        .get("UPDATE runs SET outstanding = outstanding + ?, updated_at = ? WHERE id = ?")
        .run(created, now, lease.runId);
      return claimed;
    }
    const row = this.s
      .get(
        `UPDATE runs SET status = 'waiting', outstanding = outstanding + ?, ready_at = ?, lease_owner = NULL,
           lease_expires_at = NULL, updated_at = ? WHERE id = ? RETURNING outstanding`,
      )
      .get(created, wakeAfterMs === null ? null : now + wakeAfterMs, now, lease.runId) as { outstanding: number };
    if (awaitChildren && row.outstanding <= 0) {
      this.s.get("UPDATE runs SET status = 'pending', ready_at = ? WHERE id = ?").run(now, lease.runId);
    }
    return claimed;
  }

  /** Keeps a signal that woke no run for `bufferMs` (dropping expired ones of its event). */
  bufferSignal(event: string, payload: string | null, now: number, bufferMs: number): void {
    this.s.get("DELETE FROM signal_buffer WHERE event = ? AND expires_at <= ?").run(event, now);
    this.s
      .get("INSERT INTO signal_buffer (event, payload, created_at, expires_at) VALUES (?, ?, ?, ?)")
      .run(event, payload, now, now + bufferMs);
  }

  /**
   * The waits a run just parked take buffered signals of their events (oldest unexpired first,
   * each once); a run whose wait was answered is re-queued at once. SQLite serialises writers, so
   * a signal and a park never miss each other.
   */
  takeBufferedSignals(runId: string, steps: readonly StepWrite[], now: number): void {
    let answered = false;
    for (const st of steps) {
      if (st.kind !== "wait" || st.status !== "pending" || !st.event) continue;
      const row = this.s
        .get("SELECT seq, payload FROM signal_buffer WHERE event = ? AND expires_at > ? ORDER BY seq LIMIT 1")
        .get(st.event, now) as { seq: number; payload: string | null } | undefined;
      if (!row) continue;
      this.s.get("DELETE FROM signal_buffer WHERE seq = ?").run(row.seq);
      this.s
        .get(
          "UPDATE steps SET status = 'done', value = ?, finished_at = ? WHERE run_id = ? AND key = ? AND status = 'pending'",
        )
        .run(row.payload, now, runId, st.key);
      answered = true;
    }
    if (answered)
      this.s
        .get("UPDATE runs SET status = 'pending', ready_at = ?, updated_at = ? WHERE id = ? AND status = 'waiting'")
        .run(now, now, runId);
  }

  /**
   * `cache_ttl`: when a run with the child's cache key succeeded within the TTL, the
   * parent's step takes its result and no child is created.
   */
  private resolveFromCache(parentId: string, child: ChildSpec, now: number): boolean {
    if (!child.cacheKey || !child.cacheTtlMs) return false;
    const hit = this.s
      .get(
        `SELECT id, result FROM runs WHERE cache_key = ? AND status = 'succeeded' AND finished_at >= ?
         ORDER BY finished_at DESC LIMIT 1`,
      )
      .get(child.cacheKey, now - child.cacheTtlMs) as { id: string; result: string | null } | undefined;
    if (!hit) return false;
    this.s
      .get(
        "UPDATE steps SET status = 'done', value = ?, child_id = ?, finished_at = ? WHERE run_id = ? AND key = ? AND status = 'pending'",
      )
      .run(hit.result, hit.id, now, parentId, child.parentKey);
    return true;
  }

  /** Ends or re-queues a claimed run. */
  complete(lease: Lease, outcome: RunOutcome, now: number): RunRecord | undefined {
    if (outcome.status === "retry") {
      this.s
        .get(
          `UPDATE runs SET status = 'pending', attempt = attempt + 1, ready_at = ?, error = ?, lease_owner = NULL,
             lease_expires_at = NULL, updated_at = ? WHERE id = ?`,
        )
        .run(now + outcome.delayMs, JSON.stringify(outcome.error), now, lease.runId);
      return undefined;
    }
    return this.finish(lease.runId, outcome, now);
  }

  /** Moves a run to a terminal status and resolves its parent's step. */
  finish(runId: string, outcome: Exclude<RunOutcome, { status: "retry" }>, now: number): RunRecord {
    return this.end(runId, outcome, now)!;
  }

  /**
   * Ends a claimed run if `lease` is still its current claim: the fence and the write are one
   * statement. Undefined when the lease is stale (nothing written). With `claimed` (the run as
   * the claim returned it) only `outstanding`, the one column that changes under a claim (its
   * children finishing), is read back: building the whole row cost as much as the update.
   */
  finishLeased(
    lease: Lease,
    outcome: Exclude<RunOutcome, { status: "retry" }>,
    now: number,
    claimed?: RunRecord,
  ): RunRecord | undefined {
    if (!claimed || claimed.id !== lease.runId) return this.end(lease.runId, outcome, now, lease.token);
    const { result, error, errorText } = ending(outcome);
    // A running run has no ready_at (a claim clears it), so it is not written: the indexes over
    // it are then left alone.
    const stmt = this.s.get(
      `UPDATE runs SET status = ?, result = ?, error = ?, finished_at = ?, updated_at = ?, lease_owner = NULL,
         lease_expires_at = NULL
       WHERE id = ? AND status = 'running' AND claims = ? RETURNING outstanding`,
    );
    const outstanding = stmt.pluck().get(outcome.status, result, errorText, now, now, lease.runId, lease.token) as
      number | undefined;
    if (outstanding === undefined) return undefined;
    const run: RunRecord = {
      ...claimed,
      status: outcome.status,
      result,
      // As a read would parse it back (a failure's error object may carry more than its JSON).
      error: errorText === null ? null : (JSON.parse(errorText) as SerializedError),
      readyAt: null,
      leaseOwner: null,
      leaseExpiresAt: null,
      outstanding,
      finishedAt: now,
      updatedAt: now,
    };
    if (run.parentId !== null && run.parentKey !== null)
      this.resolveParent(run.parentId, run.parentKey, result, error, errorText, now);
    return run;
  }

  private end(
    runId: string,
    outcome: Exclude<RunOutcome, { status: "retry" }>,
    now: number,
    token: number | null = null,
  ): RunRecord | undefined {
    const { result, error, errorText } = ending(outcome);
    // Raw row (an array): cheaper to build than an object of every column.
    const { stmt, columns } = this.s.raw(
      `UPDATE runs SET status = ?, result = ?, error = ?, finished_at = ?, updated_at = ?, ready_at = NULL,
         lease_owner = NULL, lease_expires_at = NULL
       WHERE id = ?${token === null ? "" : " AND status = 'running' AND claims = ?"} RETURNING *`,
    );
    const params = [outcome.status, result, errorText, now, now, runId];
    const values = (token === null ? stmt.get(...params) : stmt.get(...params, token)) as unknown[] | undefined;
    if (!values) return undefined;
    const row = rawToRun(values, columns);
    if (row.parentId !== null && row.parentKey !== null) {
      this.resolveParent(row.parentId, row.parentKey, result, error, errorText, now);
    }
    return row;
  }

  /**
   * Resolves the parent's pending step for a finished child and decrements its
   * outstanding count. The step's pending→done transition happens once, so the
   * decrement happens exactly once per child.
   */
  private resolveParent(
    parentId: string,
    key: string,
    result: string | null,
    error: SerializedError | null,
    errorText: string | null,
    now: number,
  ): void {
    const changed = this.s
      .get(
        `UPDATE steps SET status = ?, value = ?, error = ?, finished_at = ? WHERE run_id = ? AND key = ? AND status = 'pending'`,
      )
      .run(error ? "error" : "done", result, errorText, now, parentId, key).changes;
    if (changed === 0) return;
    this.s
      .get(
        `UPDATE runs SET outstanding = outstanding - 1,
           ready_at = CASE WHEN outstanding <= 1 AND status = 'waiting' THEN ? ELSE ready_at END,
           status   = CASE WHEN outstanding <= 1 AND status = 'waiting' THEN 'pending' ELSE status END,
           updated_at = ?
         WHERE id = ?`,
      )
      .run(now, now, parentId);
  }

  /** Extends every still-current lease (recording its length); returns the run ids whose lease is gone. */
  heartbeat(leases: Lease[], leaseMs: number, now: number): string[] {
    const stmt = this.s.get(
      "UPDATE runs SET lease_expires_at = ?, lease_ms = ?, lease_noticed_at = NULL WHERE id = ? AND claims = ? AND status = 'running'",
    );
    const lost: string[] = [];
    for (const l of leases) if (stmt.run(now + leaseMs, leaseMs, l.runId, l.token).changes === 0) lost.push(l.runId);
    return lost;
  }

  /** Appends captured log lines, dropping those of a claim that is no longer current. */
  appendLogs(lines: LogLine[]): void {
    const stmt = this.s.get(
      "INSERT INTO logs (run_id, step_key, attempt, level, message, ts) VALUES (?, ?, ?, ?, ?, ?)",
    );
    const live = new Map<string, boolean>();
    for (const l of lines) {
      if (l.token !== undefined) {
        const claim = `${l.runId}\u0000${l.token}`;
        if (!live.has(claim)) live.set(claim, this.fence({ runId: l.runId, token: l.token }));
        if (!live.get(claim)) continue;
      }
      stmt.run(l.runId, l.stepKey, l.attempt, l.level, l.message, l.ts);
    }
  }
}

/** What an enqueue writes, besides the columns of {@link insertArgs}' own. */
interface InsertRunParams {
  id: string;
  workflow: string;
  task: string | null;
  queue: string;
  payload: string | null;
  priority: number;
  maxAttempts: number;
  backoffBase: number;
  backoffMax: number;
  parentId: string | null;
  parentKey: string | null;
  rootId: string;
  options: string | null;
  now: number;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  /** The lease's length (`store/clock-reanchor.ts`), with `leaseExpiresAt`. */
  leaseMs: number | null;
  createdBy: string | null;
  cacheKey: string | null;
  concurrencyKey: string | null;
  concurrencyLimit: number | null;
  concurrencyWindowMs: number | null;
}

/** What a final outcome writes: the result, the error and the error as stored (JSON). */
function ending(outcome: Exclude<RunOutcome, { status: "retry" }>): {
  result: string | null;
  error: SerializedError | null;
  errorText: string | null;
} {
  const error =
    outcome.status === "failed"
      ? outcome.error
      : outcome.status === "cancelled"
        ? cancelledError(outcome.reason)
        : null;
  return {
    result: outcome.status === "succeeded" ? outcome.result : null,
    error,
    errorText: error ? JSON.stringify(error) : null,
  };
}

function conflict(runId: string, detail: string): SerializedError {
  const { stack: _stack, ...rest } = serializeError(new RunIdConflictError(runId, detail));
  return rest;
}
