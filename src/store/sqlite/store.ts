import type { ScheduleOwner } from "../schedule-sync.js";
import Database from "better-sqlite3";
import { type Clock, systemClock } from "../../core/clock.js";
import type { Duration } from "../../core/duration.js";
import { durationOption } from "../../core/duration-option.js";
import type {
  ApprovalEvent,
  ClaimedRun,
  ClaimRequest,
  Command,
  CommandResult,
  FireScheduleRequest,
  LogRecord,
  QueueReadiness,
  ResolveWaitOutcome,
  ResolveWaitRequest,
  RunFilter,
  RunRecord,
  RunStatus,
  ScheduleRecord,
  StepRecord,
  RetryDelay,
  SignalOutcome,
  Store,
  StoreLocation,
  WorkflowInfo,
  StoreMetrics,
  OverviewRequest,
  StoreOverview,
  LogFilter,
  PublishReleaseOutcome,
  PublishReleaseRequest,
  ReleaseRecord,
  ReleaseSummary,
  WatchOptions,
} from "../types.js";
import { cancelledError, PARENT_CANCELLED } from "../run-errors.js";
import { isTerminal } from "../types.js";
import { listApprovalEvents, recordApprovalEvent, resolveWait } from "./approvals.js";
import { claimRuns, nextReadyAt } from "./claim.js";
import { openConnection } from "./connection.js";
import { SqliteReads } from "./reads.js";
import * as kv from "./kv.js";
import * as leaders from "./leaders.js";
import { probeNewSpace, writeProbeKey } from "./ready-probe.js";
import { anyWrittenAhead, reanchorDueTimes } from "./clock-reanchor.js";
import { reclaimExpired } from "./reclaim.js";
import * as releases from "./releases.js";
import * as schedules from "./schedules.js";
import { Statements } from "./statements.js";
import { WriteTransactions, type WriteOptions } from "./write-lock.js";
import { EnqueueConflict, SqliteWrites } from "./writes.js";
import { lastLogSeq, readLogs } from "./logs.js";
import { readOverview } from "./overview.js";
import { reserveWal } from "./wal-reserve.js";
import { workflowChanged } from "../workflow-changed.js";

/** Retention's commits: see {@link SqliteStore.deleteFinished}. */
const RELAXED: WriteOptions = { relaxed: true };

/** True in an upsert of `workflows` when the stored row differs from the `excluded` one (or is removed). */
const WORKFLOW_CHANGED = workflowChanged("IS NOT");

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /** Database file; created with its folder if missing. `:memory:` works for one process. */
  path: string;
  clock?: Clock;
  /** How often `watch` polls for commits made by other processes. Default `25` (ms). */
  poll?: Duration;
  /** The earlier name of `poll`, in ms. @deprecated Use `poll` (a Duration; a number is ms). */
  pollMs?: number;
  /** How long a writer waits for another process's lock before failing. Default `"10s"`. */
  busyTimeout?: Duration;
  /** The earlier name of `busyTimeout`, in ms. @deprecated Use `busyTimeout` (a Duration; a number is ms). */
  busyTimeoutMs?: number;
  /**
   * When the file exists but may not be written (read-only file or folder), open it
   * read-only instead of failing: reads work, writes fail. For commands that only read.
   */
  readOnlyFallback?: boolean;
}

/**
 * Opens (creating and migrating if needed) the embedded SQLite store: WAL,
 * `synchronous=FULL` (acknowledged writes survive a crash), busy timeout.
 * @throws DatabaseOpenError when the file cannot be opened (for writing, unless `readOnlyFallback`)
 */
export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  const busyTimeoutMs = durationOption(options.busyTimeout, options.busyTimeoutMs, 10_000);
  const { db, cleanup } = openConnection({
    path: options.path,
    busyTimeoutMs,
    readOnlyFallback: options.readOnlyFallback,
  });
  const pollMs = durationOption(options.poll, options.pollMs, 25);
  return new SqliteStore(db, options.clock ?? systemClock, pollMs, cleanup, busyTimeoutMs);
}

/** The SQLite {@link Store}. Create it with {@link openSqliteStore}. */
export class SqliteStore implements Store {
  readonly kind = "sqlite";
  readonly leasesChildren = true;
  /** The database file, or memory for `:memory:`. */
  readonly location: StoreLocation;
  private readonly s: Statements;
  private readonly w: SqliteWrites;
  private readonly r: SqliteReads;
  private readonly watchers = new Set<() => void>();
  private watchTimer: NodeJS.Timeout | null = null;
  private lastDataVersion = 0;
  private closed = false;

  /** True when the file was opened read-only ({@link SqliteStoreOptions.readOnlyFallback}): writes fail. */
  readonly readOnly: boolean;

  constructor(
    readonly db: Database.Database,
    private readonly clock: Clock,
    private readonly pollMs: number,
    private readonly cleanup: (() => void) | null = null,
    busyTimeoutMs = 10_000,
  ) {
    this.readOnly = db.readonly;
    this.location = db.memory ? { kind: "memory" } : { kind: "file", path: db.name };
    this.s = new Statements(db);
    // A read-only connection writes nothing: it keeps SQLite's busy handler for its reads.
    this.writes = db.readonly ? null : new WriteTransactions(db, busyTimeoutMs);
    this.w = new SqliteWrites(this.s);
    this.r = new SqliteReads(this.s);
  }

  async now(): Promise<number> {
    return this.clock.now();
  }

  /** Grows the WAL file before the first commits need it (see `wal-reserve.ts`); not on a read-only connection. */
  reserveLog(): void {
    if (this.writes) reserveWal(this.db);
  }

  /** The write transactions; null on a read-only connection. */
  private readonly writes: WriteTransactions | null;

  /**
   * Runs `fn` in one IMMEDIATE transaction (takes the write lock up front, so no upgrade
   * deadlocks); a lock held by another process is waited for on the event loop
   * (`write-lock.ts`). `fn` gets the store clock's time read inside the transaction. The value at
   * once when the lock was free, else a promise of it.
   */
  private tx<T>(fn: (now: number) => T, options?: WriteOptions): T | Promise<T> {
    // `now` is read once the lock is held: a write that waited for it stamps leases and times from then.
    const body = () => fn(this.clock.now());
    if (!this.writes) return body(); // read-only: the write inside fails with SQLITE_READONLY
    return this.writes.run(body, options);
  }

  async commit(commands: Command[]): Promise<CommandResult[]> {
    if (commands.length === 0) return [];
    return this.tx((now) => {
      const results = commands.map((c) => (c.verb === "claim" ? null : this.apply(c, now)));
      // Claims go last: they take the slots the batch freed and the runs it enqueued.
      return commands.map((c, i) => results[i] ?? this.apply(c, now));
    });
  }

  private apply(c: Command, now: number): CommandResult {
    switch (c.verb) {
      case "enqueue":
        try {
          return { ok: true, enqueued: this.w.enqueue(c.request, now) };
        } catch (err) {
          if (err instanceof EnqueueConflict) return { ok: false, error: err.error };
          throw err;
        }
      case "heartbeat":
        return { ok: true, lost: this.w.heartbeat(c.leases, c.leaseMs, now) };
      case "appendLogs":
        this.w.appendLogs(c.lines);
        return { ok: true };
      case "claim":
        return {
          ok: true,
          claimed: c.request.limit <= 0 || c.request.workflows.length === 0 ? [] : claimRuns(this.s, c.request, now),
        };
      default: {
        // A final outcome fences in its own update (no read of the run first).
        if (c.verb === "complete" && c.outcome.status !== "retry") {
          const finished = this.w.finishLeased(c.lease, c.outcome, now, c.claimed);
          return finished ? { ok: true, finished } : { ok: false, fenced: true };
        }
        const fence = this.w.fence(c.lease);
        if (!fence) return { ok: false, fenced: true };
        if (c.verb === "saveSteps") this.w.writeSteps(c.lease.runId, c.steps, now);
        else if (c.verb === "suspend") {
          this.w.writeSteps(c.lease.runId, c.steps, now);
          const root = this.s.get("SELECT root_id FROM runs WHERE id = ?").get(c.lease.runId) as { root_id: string };
          const claimed = this.w.suspend(
            c.lease,
            root.root_id,
            c.children,
            c.wakeAfterMs,
            c.awaitChildren,
            now,
            c.keepClaim,
          );
          if (!c.keepClaim) this.w.takeBufferedSignals(c.lease.runId, c.steps, now);
          if (claimed.length > 0) return { ok: true, claimed };
        } else {
          const finished = this.w.complete(c.lease, c.outcome, now);
          if (finished) return { ok: true, finished };
        }
        return { ok: true };
      }
    }
  }

  async claim(req: ClaimRequest): Promise<ClaimedRun[]> {
    if (req.limit <= 0 || req.workflows.length === 0) return [];
    return this.tx((now) => claimRuns(this.s, req, now));
  }

  async resolveWait(req: ResolveWaitRequest): Promise<ResolveWaitOutcome> {
    return this.tx((now) => resolveWait(this.s, req, now));
  }

  async recordApprovalEvent(e: Omit<ApprovalEvent, "ts">): Promise<void> {
    await this.tx((now) => recordApprovalEvent(this.s, e, now));
  }

  async listApprovalEvents(runId: string): Promise<ApprovalEvent[]> {
    return listApprovalEvents(this.s, runId);
  }

  async probeWrite(): Promise<void> {
    const file = this.location.kind === "file" ? this.location.path : null;
    const pageSize = this.db.pragma("page_size", { simple: true }) as number;
    await this.tx(() => writeProbeKey(this.s));
    probeNewSpace(file, pageSize); // outside the transaction: the lock is not held through its fsync
  }
  async kvGet(key: string): Promise<string | null> {
    return kv.kvGet(this.s, key);
  }
  async kvPut(key: string, value: string): Promise<void> {
    await this.tx(() => kv.kvPut(this.s, key, value));
  }
  async kvPutAll(entries: ReadonlyArray<{ key: string; value: string }>): Promise<void> {
    if (entries.length === 0) return;
    await this.tx(() => kv.kvPutAll(this.s, entries));
  }
  async kvDelete(key: string): Promise<boolean> {
    return this.tx(() => kv.kvDelete(this.s, key));
  }
  async kvSwap(key: string, expected: string | null, value: string | null): Promise<boolean> {
    return this.tx(() => kv.kvSwap(this.s, key, expected, value));
  }
  async kvList(prefix: string): Promise<Array<{ key: string; value: string }>> {
    return kv.kvList(this.s, prefix);
  }

  async signal(event: string, payload: string | null, bufferMs?: number): Promise<SignalOutcome> {
    return this.tx((now) => {
      const waits = this.s
        .get(
          `SELECT s.run_id, s.key FROM steps s JOIN runs r ON r.id = s.run_id
           WHERE s.event = ? AND s.status = 'pending' AND s.kind = 'wait' AND r.status = 'waiting'`,
        )
        .all(event) as Array<{ run_id: string; key: string }>;
      const resolve = this.s.get(
        "UPDATE steps SET status = 'done', value = ?, finished_at = ? WHERE run_id = ? AND key = ?",
      );
      const wake = this.s.get(
        "UPDATE runs SET status = 'pending', ready_at = ?, updated_at = ? WHERE id = ? AND status = 'waiting'",
      );
      const woken = new Set<string>();
      for (const w of waits) {
        resolve.run(payload, now, w.run_id, w.key);
        if (!woken.has(w.run_id)) {
          wake.run(now, now, w.run_id);
          woken.add(w.run_id);
        }
      }
      const buffered = woken.size === 0 && bufferMs !== undefined && bufferMs > 0;
      if (buffered) this.w.bufferSignal(event, payload, now, bufferMs);
      return { woken: woken.size, buffered };
    });
  }

  async cancel(runId: string, reason: string | null): Promise<RunStatus | null> {
    return this.tx((now) => {
      const row = this.s.get("SELECT status, parent_id, parent_key FROM runs WHERE id = ?").get(runId) as
        { status: RunStatus; parent_id: string | null; parent_key: string | null } | undefined;
      if (!row) return null;
      if (isTerminal(row.status)) return row.status;
      this.w.finish(runId, { status: "cancelled", reason }, now);
      const error = JSON.stringify(cancelledError(PARENT_CANCELLED));
      this.s
        .get(
          `WITH RECURSIVE d(id) AS (SELECT id FROM runs WHERE parent_id = ? UNION ALL SELECT r.id FROM runs r JOIN d ON r.parent_id = d.id)
           UPDATE runs SET status = 'cancelled', error = ?, finished_at = ?, updated_at = ?, ready_at = NULL, lease_owner = NULL,
             lease_expires_at = NULL
           WHERE id IN (SELECT id FROM d) AND status NOT IN ('succeeded', 'failed', 'cancelled')`,
        )
        .run(runId, error, now, now);
      return "cancelled" as const;
    });
  }

  async retry(runId: string): Promise<RunStatus | null> {
    return this.tx((now) => {
      const row = this.s.get("SELECT status FROM runs WHERE id = ?").get(runId) as { status: RunStatus } | undefined;
      if (!row) return null;
      if (row.status !== "failed" && row.status !== "cancelled") return row.status;
      this.s
        .get(
          `UPDATE runs SET status = 'pending', attempt = attempt + 1, max_attempts = MAX(max_attempts, attempt + 1), ready_at = ?,
             finished_at = NULL, result = NULL, updated_at = ? WHERE id = ?`,
        )
        .run(now, now, runId);
      return "pending" as const;
    });
  }

  async reclaimExpired(limit: number, retryDelayMs: RetryDelay): Promise<string[]> {
    return this.tx((now) => reclaimExpired(this.s, this.w, now, limit, retryDelayMs));
  }

  async nextReadyAt(workflows: readonly string[], queues?: readonly string[]): Promise<number | null> {
    return nextReadyAt(this.s, workflows, queues);
  }

  async readyByQueue(workflows: readonly string[]): Promise<QueueReadiness[]> {
    // The queued runs only (the claim-order index), not every run of the workflows.
    const sql = `SELECT queue, MIN(ready_at) AS readyAt FROM runs INDEXED BY runs_claim_order
      WHERE ready_at IS NOT NULL AND status IN ('pending', 'waiting')
      AND workflow IN (SELECT value FROM json_each(?)) GROUP BY queue ORDER BY queue`;
    return this.s.get(sql).all(JSON.stringify(workflows)) as QueueReadiness[];
  }

  async overview(request: OverviewRequest): Promise<StoreOverview> {
    return readOverview(this.s, request);
  }

  async metricsSnapshot(): Promise<StoreMetrics> {
    const now = this.clock.now();
    const runs = this.s
      .get(`SELECT workflow, status, COUNT(*) AS count FROM runs GROUP BY workflow, status ORDER BY workflow, status`)
      .all() as StoreMetrics["runs"];
    const runnable = this.s
      .get(
        `SELECT queue, COUNT(*) AS count, MIN(ready_at) AS oldestReadyAt FROM runs
         WHERE status IN ('pending', 'waiting') AND ready_at IS NOT NULL AND ready_at <= ? GROUP BY queue ORDER BY queue`,
      )
      .all(now) as StoreMetrics["runnable"];
    const approvals = this.s
      .get(
        `SELECT COUNT(*) AS n FROM steps s JOIN runs r ON r.id = s.run_id
         WHERE s.kind = 'approval' AND s.status = 'pending' AND r.status = 'waiting'`,
      )
      .get() as { n: number };
    return { now, runs, runnable, approvalsWaiting: approvals.n };
  }

  async getRun(id: string): Promise<RunRecord | null> {
    return this.r.getRun(id);
  }
  async getRuns(ids: readonly string[]): Promise<RunRecord[]> {
    return this.r.getRuns(ids);
  }
  async listRuns(filter: RunFilter): Promise<RunRecord[]> {
    return this.r.listRuns(filter);
  }
  async countRuns(filter: Omit<RunFilter, "limit" | "beforeSeq">): Promise<number> {
    return this.r.countRuns(filter);
  }
  async getSteps(runId: string): Promise<StepRecord[]> {
    return this.r.getSteps(runId);
  }
  async listLogs(filter: LogFilter): Promise<Array<LogRecord & { workflow: string }>> {
    return readLogs(this.s, filter);
  }
  async lastLogSeq(): Promise<number> {
    return lastLogSeq(this.s);
  }

  async getLogs(runId: string, afterSeq = 0): Promise<LogRecord[]> {
    return this.r.getLogs(runId, afterSeq);
  }

  async reanchorDueTimes(): Promise<number> {
    if (!anyWrittenAhead(this.s, this.clock.now())) return 0;
    return this.tx((now) => reanchorDueTimes(this.s, now));
  }

  async deleteFinished(finishedBefore: number, batch: number): Promise<number> {
    // Retention's commits skip the fsync (synchronous=NORMAL: consistent after a crash, the
    // deletion at worst undone and repeated by the next retention), so a delete never holds the
    // write lock through a slow disk flush. Every other commit stays FULL and its fsync of the
    // WAL covers these frames too. Set and reset around each attempt (`write-lock.ts`): no other
    // transaction of this connection can run in between.
    return this.tx(() => {
      const ids = this.s
        .get("SELECT id FROM runs WHERE finished_at < ? AND status IN ('succeeded', 'failed', 'cancelled') LIMIT ?")
        .all(finishedBefore, batch) as Array<{ id: string }>;
      this.s.get("DELETE FROM signal_buffer WHERE expires_at <= ?").run(this.clock.now());
      if (ids.length === 0) return 0;
      // One statement per table over the batch (a third of the time of one per run and table).
      const list = JSON.stringify(ids.map((r) => r.id));
      for (const table of ["steps", "logs", "approval_events"])
        this.s.get(`DELETE FROM ${table} WHERE run_id IN (SELECT value FROM json_each(?))`).run(list);
      this.s.get("DELETE FROM runs WHERE id IN (SELECT value FROM json_each(?))").run(list);
      return ids.length;
    }, RELAXED);
  }

  async registerWorkflows(workflows: WorkflowInfo[]): Promise<void> {
    const now = this.clock.now();
    const upsert = this.s.get(
      `INSERT INTO workflows (name, version, queue, max_attempts, backoff_base, backoff_max, source, schedule, local, params, removed_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)
       ON CONFLICT (name) DO UPDATE SET version = excluded.version, queue = excluded.queue, max_attempts = excluded.max_attempts,
         backoff_base = excluded.backoff_base, backoff_max = excluded.backoff_max, source = excluded.source,
         schedule = excluded.schedule, local = excluded.local, params = excluded.params, removed_at = NULL, updated_at = excluded.updated_at
       WHERE ${WORKFLOW_CHANGED}`,
    );
    // A row that is already as given is not rewritten: a worker starting on the published
    // versions (every lane worker) commits nothing, so it neither syncs the disk nor wakes watchers.
    await this.tx(() => {
      for (const w of workflows) {
        const params = w.params ? JSON.stringify(w.params) : null;
        upsert.run(
          w.name,
          w.version,
          w.queue,
          w.maxAttempts,
          w.backoff.base,
          w.backoff.max,
          w.source,
          w.schedule ? JSON.stringify(w.schedule) : null,
          w.local ? 1 : 0,
          params,
          now,
        );
      }
    });
  }
  async removeWorkflows(names: readonly string[]): Promise<void> {
    const now = this.clock.now();
    const mark = this.s.get(
      "UPDATE workflows SET removed_at = ?, updated_at = ? WHERE name = ? AND removed_at IS NULL",
    );
    await this.tx(() => {
      for (const name of names) mark.run(now, now, name);
    });
  }
  async listWorkflows(): Promise<WorkflowInfo[]> {
    return this.r.listWorkflows();
  }
  async getWorkflow(name: string): Promise<WorkflowInfo | null> {
    return this.r.getWorkflow(name);
  }
  async putBundle(hash: string, code: string): Promise<void> {
    await this.tx((now) =>
      this.s.get("INSERT OR IGNORE INTO bundles (hash, code, created_at) VALUES (?, ?, ?)").run(hash, code, now),
    );
  }
  async getBundle(hash: string): Promise<string | null> {
    const row = this.s.get("SELECT code FROM bundles WHERE hash = ?").get(hash) as { code: string } | undefined;
    return row?.code ?? null;
  }

  async publishRelease(request: PublishReleaseRequest): Promise<PublishReleaseOutcome> {
    return this.tx((now) => releases.publishRelease(this.s, now, request));
  }
  async currentReleaseId(): Promise<number | null> {
    return releases.currentReleaseId(this.s);
  }
  async getRelease(id: number): Promise<ReleaseRecord | null> {
    return releases.getRelease(this.s, id);
  }
  async listReleases(limit: number): Promise<ReleaseSummary[]> {
    return releases.listReleases(this.s, limit);
  }
  async releaseBundles(): Promise<Array<{ id: number; createdAt: number; bundles: string[] }>> {
    return releases.releaseBundles(this.s);
  }

  async syncSchedules(
    entries: Array<{ workflow: string; cron: string; timezone: string; nextAt: number | null }>,
    owner: ScheduleOwner = "process",
  ): Promise<void> {
    await this.tx((now) => schedules.syncSchedules(this.s, now, entries, owner));
  }
  async listSchedules(): Promise<ScheduleRecord[]> {
    return schedules.listSchedules(this.s);
  }
  async setSchedulePaused(workflow: string, paused: boolean): Promise<boolean> {
    return this.tx((now) => schedules.setSchedulePaused(this.s, now, workflow, paused));
  }
  async fireSchedule(req: FireScheduleRequest): Promise<boolean> {
    return this.tx((now) => {
      const changed = this.s
        .get(
          "UPDATE schedules SET next_at = ?, last_fired_at = ?, updated_at = ? WHERE workflow = ? AND next_at = ? AND paused = 0",
        )
        .run(req.nextAt, req.expectedNextAt, now, req.workflow, req.expectedNextAt).changes;
      if (changed === 0) return false;
      try {
        this.w.enqueue(req.run, now);
      } catch (err) {
        if (!(err instanceof EnqueueConflict)) throw err;
      }
      return true;
    });
  }

  async lead(name: string, holder: string, ttlMs: number): Promise<boolean> {
    return this.tx((now) => leaders.lead(this.s, now, name, holder, ttlMs));
  }
  async resign(name: string, holder: string): Promise<void> {
    await this.tx(() => leaders.resign(this.s, name, holder));
  }

  watch(onChange: () => void, _options?: WatchOptions): () => void {
    this.watchers.add(onChange);
    if (!this.watchTimer) {
      this.lastDataVersion = this.dataVersion();
      this.watchTimer = setInterval(() => this.poll(), this.pollMs);
      this.watchTimer.unref();
    }
    return () => {
      this.watchers.delete(onChange);
      if (this.watchers.size === 0 && this.watchTimer) {
        clearInterval(this.watchTimer);
        this.watchTimer = null;
      }
    };
  }

  /**
   * `PRAGMA data_version` through one prepared statement: `db.pragma()` prepares it afresh on
   * every call, and the watch asks 40 times a second while anyone waits.
   */
  private dataVersion(): number {
    return this.s.get("PRAGMA data_version").pluck().get() as number;
  }

  /** `data_version` changes when another connection commits; our own commits are announced in-process. */
  private poll(): void {
    if (this.closed) return;
    const v = this.dataVersion();
    if (v === this.lastDataVersion) return;
    this.lastDataVersion = v;
    for (const w of this.watchers) w();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.watchTimer) clearInterval(this.watchTimer);
    this.watchers.clear();
    this.db.close();
    this.cleanup?.();
  }
}
