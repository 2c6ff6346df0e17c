import type { ScheduleOwner } from "../schedule-sync.js";
import type {
  ApprovalEvent,
  ClaimedRun,
  ClaimRequest,
  Command,
  EnqueueRequest,
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
import { lastPerKey } from "../kv-batch.js";
import { CLAIM_SETUP, type ClaimShape, claimRuns } from "./claim.js";
import { applyCommands } from "./commit.js";
import { applyCheckpoints, checkpointsAlone } from "./checkpoints.js";
import { applyCheckpointsAndEnds, checkpointsAndEnds } from "./checkpoints-and-ends.js";
import { insertRuns } from "./enqueue.js";
import { applyCompletions, completionsAlone } from "./finish.js";
import { applyCompletionsThenClaim, completionsThenClaim } from "./finish-and-claim.js";
import { locationOf, type PostgresOptions, type PostgresTarget, parsePostgresTarget } from "./config.js";
import { Db, type TxEnd, unreachable } from "./db.js";
import { Leadership } from "./leader.js";
import { channelOf, Listener } from "./listener.js";
import { migrate } from "./migrate.js";
import * as ops from "./ops.js";
import * as releases from "./releases.js";
import { lastLogSeq, readLogs } from "./logs.js";
import { PostgresReads } from "./reads.js";
import { toSchedule } from "./rows.js";
import * as schedules from "./schedules.js";
import { readOverview } from "./overview.js";
import { probeNewSpace } from "./ready-probe.js";
import { reanchorDueTimes, reanchorLeases } from "./clock-reanchor.js";
import { workflowChanged } from "../workflow-changed.js";

/**
 * Retention's batch: up to `$2` runs finished before `$1` with their steps, logs, claims and
 * approval events, and the expired buffered signals. The tables have no foreign keys between them.
 */
const DELETE_FINISHED = `
  WITH doomed AS (
    SELECT id FROM runs WHERE finished_at < $1 AND status IN ('succeeded', 'failed', 'cancelled') LIMIT $2
    FOR UPDATE SKIP LOCKED
  ),
  steps_gone AS (DELETE FROM steps WHERE run_id IN (SELECT id FROM doomed)),
  logs_gone AS (DELETE FROM logs WHERE run_id IN (SELECT id FROM doomed)),
  claims_gone AS (DELETE FROM claim_log WHERE run_id IN (SELECT id FROM doomed)),
  events_gone AS (DELETE FROM approval_events WHERE run_id IN (SELECT id FROM doomed)),
  signals_gone AS (DELETE FROM signal_buffer WHERE expires_at <= now_ms())
  DELETE FROM runs WHERE id IN (SELECT id FROM doomed)`;

/** True in an upsert of `workflows` when the stored row differs from the `excluded` one (or is removed). */
const WORKFLOW_CHANGED = workflowChanged("IS DISTINCT FROM");

/**
 * Opens the Postgres store for `url` (`postgres://user:pass@host/db?schema=sluice`).
 * Returns at once; the first call connects and migrates (several processes may
 * start together: migrations are serialised by an advisory lock), and fails with
 * `DATABASE_UNREACHABLE` or `SCHEMA_TOO_NEW` when it cannot. Call `ready()` to
 * surface those errors at startup.
 * @throws InvalidDatabaseUrlError for a malformed URL or schema name
 */
export function openPostgresStore(url: string, options: PostgresOptions = {}): PostgresStore {
  return new PostgresStore(parsePostgresTarget(url, options));
}

/** The requests of a batch of enqueues alone, each of another id; null for any other batch. */
function enqueuesAlone(commands: Command[]): EnqueueRequest[] | null {
  const reqs: EnqueueRequest[] = [];
  const ids = new Set<string>();
  for (const cmd of commands) {
    if (cmd.verb !== "enqueue" || ids.has(cmd.request.id)) return null;
    ids.add(cmd.request.id);
    reqs.push(cmd.request);
  }
  return reqs;
}

/** The Postgres {@link Store}: shared by any number of servers and workers. */
export class PostgresStore implements Store {
  readonly kind = "postgres";
  /** A suspension's children marked `claimFor` are created leased to its worker (`commit.ts`). */
  readonly leasesChildren = true;
  /** A database server: processes on several machines share it. */
  readonly location: StoreLocation;
  readonly db: Db;
  private readonly reads: PostgresReads;
  private readonly listener: Listener;
  private readonly leadership: Leadership;
  private readonly channel: string;
  private migrated: Promise<void> | null = null;
  private closed = false;
  /**
   * Whether this store's last claim met only runs without a concurrency key, never claimed before:
   * then a batch of final outcomes and its claim go in one round trip ({@link completeThenClaim}).
   */
  private readonly claimShape: ClaimShape = { plain: true };

  constructor(readonly target: PostgresTarget) {
    this.location = locationOf(target);
    this.db = new Db(target);
    this.reads = new PostgresReads({
      query: async (text, values) => (await this.ready(), this.db.query(text, values)),
    });
    this.listener = new Listener(target, () => this.ready());
    this.leadership = new Leadership(target, () => this.ready());
    this.channel = channelOf(target.schema);
  }

  /**
   * Connects and migrates once (retried on the next call after a failure).
   * @throws DatabaseUnreachableError, SchemaTooNewError
   */
  ready(): Promise<void> {
    this.migrated ??= migrate(this.target).catch((err) => {
      this.migrated = null;
      throw unreachable(this.target, err);
    });
    return this.migrated;
  }

  private async tx<T>(fn: (c: import("pg").PoolClient, end: TxEnd) => Promise<T>, setup?: string[]): Promise<T> {
    await this.ready();
    return this.db.tx(fn, setup);
  }

  /** Wakes every watcher of this schema when the transaction commits (sent with the COMMIT, no round trip of its own). */
  private notify(end: TxEnd): void {
    end.beforeCommit.push(`SELECT pg_notify('${this.channel.replace(/'/g, "''")}', '${this.listener.origin}')`);
  }

  async now(): Promise<number> {
    await this.ready();
    return (await this.db.query<{ now: number }>("SELECT now_ms() AS now")).rows[0]!.now;
  }

  async commit(commands: Command[]): Promise<CommandResult[]> {
    if (commands.length === 0) return [];
    const enqueues = enqueuesAlone(commands);
    if (enqueues && !this.target.auditClaims) {
      await this.ready();
      const outcomes = await insertRuns(
        { query: (config) => this.db.statement(config) },
        enqueues.map((req) => ({ req })),
        false,
        // Some run may be waiting for a worker unless every one is created leased to one now.
        {
          channel: this.channel,
          payload: this.listener.origin,
          notify: enqueues.some((r) => !r.claimFor || r.runAt !== undefined),
        },
      );
      return outcomes.map((o): CommandResult => (o.created ? { ok: true, enqueued: o.result } : o.result));
    }
    // A batch of checkpoints alone, or of final outcomes alone, is one statement: its own transaction.
    const saves = checkpointsAlone(commands);
    if (saves) return this.ready().then(() => applyCheckpoints(this.db, saves));
    const ends = this.target.auditClaims ? null : completionsAlone(commands);
    if (ends)
      return this.ready().then(() =>
        applyCompletions(this.db, ends, { channel: this.channel, payload: this.listener.origin }),
      );
    // Checkpoints with the outcomes they lead to (a one-step run's pair): one statement as well.
    const pairs = this.target.auditClaims ? null : checkpointsAndEnds(commands);
    if (pairs)
      return this.ready().then(() =>
        applyCheckpointsAndEnds(this.db, pairs, { channel: this.channel, payload: this.listener.origin }),
      );
    const riding = this.target.auditClaims || !this.claimShape.plain ? null : completionsThenClaim(commands);
    if (riding) return this.ready().then(() => this.completeThenClaim(riding));
    return this.tx(
      async (c, end) => {
        const { results, wake } = await applyCommands(c, commands, {
          audit: this.target.auditClaims,
          claimShape: this.claimShape,
        });
        if (wake) this.notify(end);
        return results;
      },
      commands.some((cmd) => cmd.verb === "claim") ? CLAIM_SETUP : undefined,
    );
  }

  async claim(req: ClaimRequest): Promise<ClaimedRun[]> {
    if (req.limit <= 0 || req.workflows.length === 0) return [];
    return this.tx((c) => claimRuns(c, req, this.target.auditClaims, this.claimShape), CLAIM_SETUP);
  }

  /**
   * Final outcomes and the claim riding with them in one round trip; when that claim passed over
   * runs it may not take there (a concurrency key, a checkpoint to load), the slots it left are
   * claimed in a transaction of their own, and later batches take the general path until a
   * claim meets only plain runs again.
   */
  private async completeThenClaim(
    batch: NonNullable<ReturnType<typeof completionsThenClaim>>,
  ): Promise<CommandResult[]> {
    const { results, left } = await applyCompletionsThenClaim(this.db, batch, {
      channel: this.channel,
      payload: this.listener.origin,
    });
    if (left <= 0) return results;
    this.claimShape.plain = false;
    const answer = results[results.length - 1] as Extract<CommandResult, { ok: true }>;
    try {
      const more = await this.claim({ ...batch.claim.request, limit: left });
      results[results.length - 1] = { ok: true, claimed: [...(answer.claimed ?? []), ...more] };
    } catch {
      // The outcomes are committed and must be answered as such; the worker claims again later.
    }
    return results;
  }

  async signal(event: string, payload: string | null, bufferMs?: number): Promise<SignalOutcome> {
    return this.tx(async (c, end) => {
      const outcome = await ops.signalRuns(c, event, payload, bufferMs);
      if (outcome.woken > 0) this.notify(end);
      return outcome;
    });
  }

  async resolveWait(req: ResolveWaitRequest): Promise<ResolveWaitOutcome> {
    return this.tx(async (c, end) => {
      const outcome = await ops.resolveWait(c, req);
      if (outcome === "resolved") this.notify(end);
      return outcome;
    });
  }

  async recordApprovalEvent(e: Omit<ApprovalEvent, "ts">): Promise<void> {
    await this.ready();
    await this.db.query(
      "INSERT INTO approval_events (run_id, step_key, actor, decision, outcome, via, ts) VALUES ($1, $2, $3, $4, $5, $6, now_ms())",
      [e.runId, e.stepKey, e.actor, e.decision, e.outcome, e.via],
    );
  }

  async listApprovalEvents(runId: string): Promise<ApprovalEvent[]> {
    await this.ready();
    const { rows } = await this.db.query<{
      run_id: string;
      step_key: string;
      actor: string | null;
      decision: string;
      outcome: string;
      via: string | null;
      ts: number;
    }>("SELECT * FROM approval_events WHERE run_id = $1 ORDER BY seq", [runId]);
    return rows.map((r) => ({
      runId: r.run_id,
      stepKey: r.step_key,
      actor: r.actor,
      decision: r.decision,
      outcome: r.outcome as ApprovalEvent["outcome"],
      via: r.via,
      ts: r.ts,
    }));
  }

  async kvGet(key: string): Promise<string | null> {
    await this.ready();
    return (
      (await this.db.query<{ value: string }>("SELECT value FROM meta WHERE key = $1", [`kv:${key}`])).rows[0]?.value ??
      null
    );
  }
  async probeWrite(): Promise<void> {
    await this.ready();
    await probeNewSpace(this.db);
  }
  async kvPut(key: string, value: string): Promise<void> {
    await this.ready();
    await this.db.query(
      "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      [`kv:${key}`, value],
    );
  }
  async kvPutAll(entries: ReadonlyArray<{ key: string; value: string }>): Promise<void> {
    if (entries.length === 0) return;
    await this.ready();
    const one = lastPerKey(entries);
    // one statement: atomic by itself
    await this.db.query(
      "INSERT INTO meta (key, value) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      [one.map((e) => `kv:${e.key}`), one.map((e) => e.value)],
    );
  }
  async kvDelete(key: string): Promise<boolean> {
    await this.ready();
    return ((await this.db.query("DELETE FROM meta WHERE key = $1", [`kv:${key}`])).rowCount ?? 0) > 0;
  }
  async kvList(prefix: string): Promise<Array<{ key: string; value: string }>> {
    await this.ready();
    // An exact prefix comparison instead of LIKE, so `%` and `_` in a prefix mean themselves.
    const from = `kv:${prefix}`;
    const { rows } = await this.db.query<{ key: string; value: string }>(
      `SELECT key, value FROM meta WHERE left(key, char_length($1)) = $1 ORDER BY key COLLATE "C"`,
      [from],
    );
    return rows.map((r) => ({ key: r.key.slice(3), value: r.value }));
  }

  async kvSwap(key: string, expected: string | null, value: string | null): Promise<boolean> {
    await this.ready();
    const k = `kv:${key}`;
    if (expected === null && value === null) {
      return (await this.db.query("SELECT 1 FROM meta WHERE key = $1", [k])).rowCount === 0;
    }
    const r =
      expected === null
        ? await this.db.query("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING", [k, value])
        : value === null
          ? await this.db.query("DELETE FROM meta WHERE key = $1 AND value = $2", [k, expected])
          : await this.db.query("UPDATE meta SET value = $3 WHERE key = $1 AND value = $2", [k, expected, value]);
    return (r.rowCount ?? 0) > 0;
  }

  async cancel(runId: string, reason: string | null): Promise<RunStatus | null> {
    return this.tx(async (c, end) => {
      const status = await ops.cancelRun(c, runId, reason, this.target.auditClaims);
      if (status === "cancelled") this.notify(end);
      return status;
    });
  }

  async retry(runId: string): Promise<RunStatus | null> {
    return this.tx(async (c, end) => {
      const status = await ops.retryRun(c, runId);
      if (status === "pending") this.notify(end);
      return status;
    });
  }

  async reclaimExpired(limit: number, retryDelayMs: RetryDelay): Promise<string[]> {
    return this.tx(async (c, end) => {
      // Leases written while the database's clock was ahead: noted, and ended once not renewed for their length (store/clock-reanchor.ts).
      await reanchorLeases(c);
      const ids = await ops.reclaimExpired(c, limit, retryDelayMs, this.target.auditClaims);
      if (ids.length) this.notify(end);
      return ids;
    });
  }

  async nextReadyAt(workflows: readonly string[], queues?: readonly string[]): Promise<number | null> {
    await this.ready();
    const { rows } = await this.db.query<{ t: number | null }>(
      `SELECT min(ready_at) AS t FROM runs WHERE ready_at IS NOT NULL AND status IN ('pending', 'waiting')
         AND workflow = ANY($1::text[]) AND ($2::text[] IS NULL OR queue = ANY($2::text[]))`,
      [[...workflows], queues ? [...queues] : null],
    );
    return rows[0]?.t ?? null;
  }

  async readyByQueue(workflows: readonly string[]): Promise<QueueReadiness[]> {
    await this.ready();
    const { rows } = await this.db.query<{ queue: string; ready_at: number }>(
      `SELECT queue, min(ready_at) AS ready_at FROM runs WHERE ready_at IS NOT NULL AND status IN ('pending', 'waiting')
         AND workflow = ANY($1::text[]) GROUP BY queue ORDER BY queue`,
      [[...workflows]],
    );
    return rows.map((r) => ({ queue: r.queue, readyAt: Number(r.ready_at) }));
  }

  async overview(request: OverviewRequest): Promise<StoreOverview> {
    await this.ready();
    return readOverview(this.db, request);
  }

  async metricsSnapshot(): Promise<StoreMetrics> {
    await this.ready();
    const now = await this.now();
    const runs = await this.db.query<{ workflow: string; status: RunStatus; count: string }>(
      `SELECT workflow, status, count(*) AS count FROM runs GROUP BY workflow, status ORDER BY workflow, status`,
    );
    const runnable = await this.db.query<{ queue: string; count: string; oldest: string }>(
      `SELECT queue, count(*) AS count, min(ready_at) AS oldest FROM runs
       WHERE status IN ('pending', 'waiting') AND ready_at IS NOT NULL AND ready_at <= $1 GROUP BY queue ORDER BY queue`,
      [now],
    );
    const approvals = await this.db.query<{ n: string }>(
      `SELECT count(*) AS n FROM steps s JOIN runs r ON r.id = s.run_id
       WHERE s.kind = 'approval' AND s.status = 'pending' AND r.status = 'waiting'`,
    );
    return {
      now,
      runs: runs.rows.map((r) => ({ workflow: r.workflow, status: r.status, count: Number(r.count) })),
      runnable: runnable.rows.map((r) => ({ queue: r.queue, count: Number(r.count), oldestReadyAt: Number(r.oldest) })),
      approvalsWaiting: Number(approvals.rows[0]?.n ?? 0),
    };
  }

  getRun(id: string): Promise<RunRecord | null> {
    return this.reads.getRun(id);
  }
  getRuns(ids: readonly string[]): Promise<RunRecord[]> {
    return this.reads.getRuns(ids);
  }
  listRuns(filter: RunFilter): Promise<RunRecord[]> {
    return this.reads.listRuns(filter);
  }
  countRuns(filter: Omit<RunFilter, "limit" | "beforeSeq">): Promise<number> {
    return this.reads.countRuns(filter);
  }
  getSteps(runId: string): Promise<StepRecord[]> {
    return this.reads.getSteps(runId);
  }
  async listLogs(filter: LogFilter): Promise<Array<LogRecord & { workflow: string }>> {
    await this.ready();
    return readLogs(this.db, filter);
  }
  async lastLogSeq(): Promise<number> {
    await this.ready();
    return lastLogSeq(this.db);
  }

  getLogs(runId: string, afterSeq = 0): Promise<LogRecord[]> {
    return this.reads.getLogs(runId, afterSeq);
  }

  async reanchorDueTimes(): Promise<number> {
    return this.tx((c) => reanchorDueTimes(c));
  }

  async deleteFinished(finishedBefore: number, batch: number): Promise<number> {
    return this.tx(async (c) => {
      // A lost deletion is repeated by the next retention: no need to wait for its WAL flush.
      await c.query("SET LOCAL synchronous_commit = off");
      // One statement for the batch (by primary key; rows another transaction holds are skipped,
      // not waited for), so its row locks are held for one round trip, not one per table.
      const { rowCount } = await c.query(DELETE_FINISHED, [finishedBefore, batch]);
      return rowCount ?? 0;
    });
  }

  async registerWorkflows(workflows: WorkflowInfo[]): Promise<void> {
    if (workflows.length === 0) return this.ready();
    await this.tx(async (c, end) => {
      // Rows already as given are not rewritten, and nobody is woken for them (a worker starting on the published versions).
      const changed = await c.query(
        `INSERT INTO workflows (name, version, queue, max_attempts, backoff_base, backoff_max, source, schedule, local, params, updated_at)
         SELECT u.*, now_ms() FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::bigint[], $6::bigint[], $7::text[], $8::text[], $9::bool[], $10::text[]) u
         ON CONFLICT (name) DO UPDATE SET version = excluded.version, queue = excluded.queue, max_attempts = excluded.max_attempts,
           backoff_base = excluded.backoff_base, backoff_max = excluded.backoff_max, source = excluded.source,
           schedule = excluded.schedule, local = excluded.local, params = excluded.params, removed_at = NULL, updated_at = excluded.updated_at
         WHERE ${WORKFLOW_CHANGED}`,
        [
          workflows.map((w) => w.name),
          workflows.map((w) => w.version),
          workflows.map((w) => w.queue),
          workflows.map((w) => w.maxAttempts),
          workflows.map((w) => w.backoff.base),
          workflows.map((w) => w.backoff.max),
          workflows.map((w) => w.source),
          workflows.map((w) => (w.schedule ? JSON.stringify(w.schedule) : null)),
          workflows.map((w) => w.local ?? false),
          workflows.map((w) => (w.params ? JSON.stringify(w.params) : null)),
        ],
      );
      if (changed.rowCount) this.notify(end);
    });
  }
  async removeWorkflows(names: readonly string[]): Promise<void> {
    if (names.length === 0) return this.ready();
    await this.tx(async (c, end) => {
      await c.query(
        "UPDATE workflows SET removed_at = now_ms(), updated_at = now_ms() WHERE name = ANY($1::text[]) AND removed_at IS NULL",
        [[...names]],
      );
      this.notify(end);
    });
  }
  listWorkflows(): Promise<WorkflowInfo[]> {
    return this.reads.listWorkflows();
  }
  getWorkflow(name: string): Promise<WorkflowInfo | null> {
    return this.reads.getWorkflow(name);
  }
  async publishRelease(request: PublishReleaseRequest): Promise<PublishReleaseOutcome> {
    return this.tx(async (c, end) => {
      const outcome = await releases.publishRelease(c, request);
      if (outcome.ok) this.notify(end);
      return outcome;
    });
  }
  async currentReleaseId(): Promise<number | null> {
    await this.ready();
    return releases.currentReleaseId(this.db);
  }
  async getRelease(id: number): Promise<ReleaseRecord | null> {
    await this.ready();
    return releases.getRelease(this.db, id);
  }
  async listReleases(limit: number): Promise<ReleaseSummary[]> {
    await this.ready();
    return releases.listReleases(this.db, limit);
  }
  async releaseBundles(): Promise<Array<{ id: number; createdAt: number; bundles: string[] }>> {
    await this.ready();
    return releases.releaseBundles(this.db);
  }
  async putBundle(hash: string, code: string): Promise<void> {
    await this.ready();
    await this.db.query(
      "INSERT INTO bundles (hash, code, created_at) VALUES ($1, $2, now_ms()) ON CONFLICT (hash) DO NOTHING",
      [hash, code],
    );
  }
  async getBundle(hash: string): Promise<string | null> {
    await this.ready();
    return (
      (await this.db.query<{ code: string }>("SELECT code FROM bundles WHERE hash = $1", [hash])).rows[0]?.code ?? null
    );
  }

  async syncSchedules(entries: schedules.ScheduleEntry[], owner: ScheduleOwner = "process"): Promise<void> {
    await this.tx((c) => schedules.syncSchedules(c, entries, owner));
  }
  async listSchedules(): Promise<ScheduleRecord[]> {
    await this.ready();
    const { rows } = await this.db.query<Parameters<typeof toSchedule>[0]>("SELECT * FROM schedules ORDER BY workflow");
    return rows.map(toSchedule);
  }
  async setSchedulePaused(workflow: string, paused: boolean): Promise<boolean> {
    await this.ready();
    const r = await this.db.query("UPDATE schedules SET paused = $1, updated_at = now_ms() WHERE workflow = $2", [
      paused,
      workflow,
    ]);
    return (r.rowCount ?? 0) > 0;
  }
  async fireSchedule(req: FireScheduleRequest): Promise<boolean> {
    return this.tx(async (c, end) => {
      const fired = await schedules.fireSchedule(c, req, this.target.auditClaims);
      if (fired) this.notify(end);
      return fired;
    });
  }

  async lead(name: string, holder: string, _ttlMs: number): Promise<boolean> {
    return this.leadership.lead(name, holder);
  }
  async resign(name: string, holder: string): Promise<void> {
    await this.leadership.resign(name, holder);
  }

  watch(onChange: () => void, options: WatchOptions = {}): () => void {
    return this.listener.add(onChange, options);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listener.close();
    this.leadership.close();
    await this.db.close();
  }
}

export type { PostgresOptions, PostgresTarget };
