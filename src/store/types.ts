/**
 * The storage boundary. One interface in domain verbs, two implementations
 * (SQLite and Postgres), one contract suite (`test/contract/`) run against both.
 * Dialect SQL lives only inside an implementation.
 *
 * Glossary
 * - run: one execution of a workflow or task: payload, status, attempts, result or error.
 * - step: a checkpoint inside a run, addressed by its key (`charge`, `double#2`).
 * - lease: a claim on a run: an expiry plus a fencing `token` unique to that one claim.
 *   Every write made on behalf of a claim names its lease; a stale lease's writes are
 *   refused (`{ ok: false, fenced: true }`), never applied.
 * - ready_at: when a pending run may be claimed, or when a waiting run's timer fires.
 * - outstanding: how many child runs a waiting parent still waits for. Decremented
 *   inside each child's completion transaction, exactly once per child.
 *
 * Times are epoch milliseconds on the store's clock. Commands carry relative delays
 * (`delayMs`, `wakeAfterMs`, `leaseMs`) so a store can apply its own clock (the
 * database clock on Postgres).
 */
import type { ScheduleOwner } from "./schedule-sync.js";
import type { BackoffPolicy } from "../core/backoff.js";
import { isTerminal, type RunStatus, TERMINAL_STATUSES } from "../core/run-status.js";
import type { SerializedError } from "../core/serde.js";
import type { ParamSpec } from "../core/params.js";
import type { ReleaseRecord, ReleaseSummary } from "../core/release.js";

export type { ReleaseRecord, ReleaseSummary };

// The read models of operators' views (queue readiness, /metrics, the overview page).
import type { OverviewRequest, QueueReadiness, StoreMetrics, StoreOverview } from "./read-models.js";
export type { OverviewEvent, OverviewRequest, QueueReadiness, StoreMetrics, StoreOverview } from "./read-models.js";

/** Where a run is in its lifecycle (DESIGN.md "Run lifecycle"); names and Tako's aliases in `core/run-status.ts`. */
export type { RunStatus };

/** Statuses a run never leaves, and the test for them (defined once in `core/run-status.ts`). */
export { isTerminal, TERMINAL_STATUSES };

// The writes of the group commit (`Store.commit`) and their answers.
import type { Command, CommandResult } from "./commands.js";
export type { Command, CommandResult, StepWrite, ChildSpec, RunOutcome } from "./commands.js";

/** What kind of primitive wrote a checkpoint. */
export type StepKind = "step" | "sleep" | "wait" | "task" | "approval" | "asset";

/** A run as stored. JSON columns stay encoded (`payload`, `result`) so callers decode lazily. */
export interface RunRecord {
  id: string;
  /** Insertion order; stable cursor for listings. */
  seq: number;
  workflow: string;
  /** Function inside the workflow's module that this child run executes (`task(fn)`), else null. */
  task: string | null;
  /** Worker group that may claim it (`default` unless the workflow sets `worker`/`tag`). */
  queue: string;
  payload: string | null;
  status: RunStatus;
  /** Higher is claimed first. */
  priority: number;
  readyAt: number | null;
  /** 1-based number of the current (or last) attempt. */
  attempt: number;
  maxAttempts: number;
  backoff: BackoffPolicy;
  /** Code version (bundle hash) the run is pinned to; null for in-process definitions. */
  version: string | null;
  parentId: string | null;
  parentKey: string | null;
  rootId: string;
  outstanding: number;
  /** Extra per-run options (task options, schedule tick, ...), JSON-encoded. */
  options: string | null;
  result: string | null;
  error: SerializedError | null;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  /** Identity that enqueued the run (CLI user, API token); used by `selfApproval: false`. */
  createdBy: string | null;
  /** Set on task runs with `cache_ttl`: same task and arguments share it. */
  cacheKey: string | null;
  concurrency: ConcurrencyLimit | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  updatedAt: number;
}

/**
 * At most `limit` runs sharing `key` may be running at once and, with `windowMs`,
 * at most `limit` may have started within any `windowMs` (across all workers).
 */
export interface ConcurrencyLimit {
  key: string;
  limit: number;
  windowMs: number | null;
}

/** A checkpoint as stored. */
export interface StepRecord {
  runId: string;
  key: string;
  kind: StepKind;
  /** What the key pointed at when recorded (task name/path); used for determinism checks. */
  target: string | null;
  status: "done" | "error" | "pending";
  value: string | null;
  error: SerializedError | null;
  childId: string | null;
  /** Event a pending `wait` listens for. */
  event: string | null;
  /** Wake time of a sleep, deadline of a wait. */
  wakeAt: number | null;
  /** Attempts spent on this step (step-level retries). */
  attempts: number;
  /** Call index in the execution that first wrote it. */
  position: number;
  startedAt: number;
  finishedAt: number | null;
}

/** One claim on a run. */
export interface Lease {
  runId: string;
  token: number;
}

/** A request to create a run. */
export interface EnqueueRequest {
  /** Caller-chosen id (deduplicates) or a generated one (`dedupe: false`). */
  id: string;
  /** True when `id` came from the caller and repeats must deduplicate. */
  dedupe: boolean;
  workflow: string;
  /** Function of the workflow's module to run as a child task; omit for a workflow run. */
  task?: string | null;
  queue: string;
  payload: string | null;
  priority?: number;
  /** Pin to this code version (children inherit their parent's); else pinned at first claim. */
  version?: string | null;
  maxAttempts: number;
  backoff: BackoffPolicy;
  /** Absolute earliest start (store clock); default now. */
  runAt?: number;
  options?: string | null;
  createdBy?: string | null;
  /** Task result cache key (see {@link ChildSpec.cacheTtlMs}). */
  cacheKey?: string | null;
  concurrency?: ConcurrencyLimit | null;
  /**
   * Lease the new run to this worker in the same transaction (a local worker with a
   * free slot), saving a separate claim. Ignored when the id deduplicates.
   */
  claimFor?: { workerId: string; leaseMs: number };
}

/** Result of one enqueue. */
export interface EnqueueResult {
  id: string;
  deduplicated: boolean;
  /** Set when the request asked for `claimFor` and the run was created leased. */
  claimed?: ClaimedRun;
}

/** A captured log line. */
export interface LogLine {
  runId: string;
  stepKey: string | null;
  attempt: number;
  level: "debug" | "info" | "warn" | "error";
  message: string;
  ts: number;
  /**
   * Fencing token of the claim that printed the line. A line whose claim is no longer
   * the run's current one (lease lost, run reclaimed, cancelled or parked) is dropped,
   * as every other write of a stale claim is refused. Absent: not written for a claim.
   */
  token?: number;
}

/** A stored log line with its order. */
export interface LogRecord extends LogLine {
  seq: number;
}

/** See {@link Store.listLogs}. */
export interface LogFilter {
  runId?: string;
  workflow?: string;
  /** Only lines printed at or after this time (ms). */
  since?: number;
  /** Only lines after this `seq`, oldest first (following); absent: the newest `limit` lines, oldest first. */
  afterSeq?: number;
  /**
   * With `afterSeq`: only lines up to this `seq` (a follower's poll reads up to the {@link Store.lastLogSeq}
   * it read first), so that the read is a short range of the log's primary key whatever the filter.
   */
  upToSeq?: number;
  limit: number;
}

/** Ask for runnable runs. */
export interface ClaimRequest {
  workerId: string;
  limit: number;
  leaseMs: number;
  /** Only these workflow names (the ones this worker can run). */
  workflows: readonly string[];
  /** Only these worker groups; undefined means any. */
  queues?: readonly string[];
  /**
   * This worker's server name. Queues named `group@server` belong to one server
   * (`local: true` workflows on a shared database); with `server` set, runs in another
   * server's local queue are skipped. (An explicit `queues` list is taken as given.)
   */
  server?: string;
  /**
   * The code version this worker runs (an external worker's registered version): only
   * runs not yet pinned or pinned to it are taken, and the unpinned ones are pinned to it.
   * Absent: any run, pinned at first claim to its workflow's registered version.
   */
  version?: string;
}

/** A run handed to a worker, with its checkpoint. */
export interface ClaimedRun {
  run: RunRecord;
  token: number;
  steps: StepRecord[];
  /** Store clock at claim time. */
  claimedAt: number;
  /**
   * Store clock when the run became claimable for this claim: enqueued (or its `runAt`),
   * its timer or retry due, a signal or its children woke it, its lease was reclaimed.
   * `claimedAt - dueAt` is the time it waited in the queue.
   */
  dueAt: number;
}

/** See {@link Store.resolveWait}. */
export interface ResolveWaitRequest {
  runId: string;
  key: string;
  kind: "wait" | "approval";
  /** JSON value the waiting call returns. */
  value: string | null;
  audit?: { actor: string | null; decision: string; via: string };
  /** False: refuse (`forbidden`) when `audit.actor` is the identity that started the run (`selfApproval: false`). */
  creatorMayDecide?: boolean;
}

/** What happened to a {@link ResolveWaitRequest}. */
export type ResolveWaitOutcome = "resolved" | "not-found" | "already-decided" | "expired" | "not-waiting" | "forbidden";

/** One recorded approval attempt. */
export interface ApprovalEvent {
  runId: string;
  stepKey: string;
  actor: string | null;
  decision: string;
  outcome: ResolveWaitOutcome | "invalid";
  via: string | null;
  ts: number;
}

/** Filter for listings. */
export interface RunFilter {
  status?: RunStatus | RunStatus[];
  workflow?: string;
  parentId?: string;
  /** Only runs created at or after / before (ms). */
  createdAfter?: number;
  createdBefore?: number;
  /** Cursor: runs with seq below this. */
  beforeSeq?: number;
  limit?: number;
}

/** A workflow as published to the store by a loader or an embedding app. */
export interface WorkflowInfo {
  name: string;
  /** Bundle hash of the module defining it; null for in-process definitions. */
  version: string | null;
  queue: string;
  /** Attempts a new run gets unless its enqueue overrides them. */
  maxAttempts: number;
  backoff: BackoffPolicy;
  /** Source file relative to the project root, when loaded from a file. */
  source: string | null;
  schedule: { cron: string; timezone: string } | null;
  /** `local: true`: its queue and cron are kept per server on a shared database. */
  local?: boolean;
  /** Named parameters an enqueue's payload is checked against (workflows as code); null when not mapped by name. */
  params?: ParamSpec | null;
  /** When its module was removed (`Store.removeWorkflows`); null or absent while it is published. */
  removedAt?: number | null;
}

/** A stored cron schedule. */
export interface ScheduleRecord {
  workflow: string;
  cron: string;
  timezone: string;
  nextAt: number | null;
  paused: boolean;
  lastFiredAt: number | null;
  /** Who registered it: `release` (`sluice deploy`) or `process` (see `store/schedule-sync.ts`). */
  owner: ScheduleOwner;
}

/** Atomically record one cron tick and enqueue its run; refused if another server fired it first. */
export interface FireScheduleRequest {
  workflow: string;
  /** The `nextAt` the caller read; the fire is refused unless it still holds. */
  expectedNextAt: number;
  nextAt: number | null;
  run: EnqueueRequest;
}

/**
 * Where a store keeps its data: a local database file, process memory, or a database server.
 * Decides where a process finds the key that seals the store's secrets (`engine/secret-key.ts`)
 * and where the project's lake catalogs live (`assets/host.ts`: a schema per lake on the server).
 */
export type StoreLocation = { kind: "file"; path: string } | { kind: "memory" } | ({ kind: "server" } & ServerDatabase);

/** The database server of a server store: how to connect to it and the store's schema. */
export interface ServerDatabase {
  /** Connection URL without Sluice's own parameters (it may hold a password: never print it). */
  readonly url: string;
  /** The store's schema (lake catalogs get schemas of their own beside it). */
  readonly schema: string;
}

/** What a signal did: how many waiting runs it woke, and whether it was kept for a later `waitFor`. */
export interface SignalOutcome {
  woken: number;
  buffered: boolean;
}

/** See {@link Store.publishRelease}. */
export interface PublishReleaseRequest {
  /** The release's manifest, JSON (`core/release.ts` `ReleaseManifest`). */
  manifest: string;
  /** What it changes against `expectedCurrent`, JSON (`ReleaseChanges`). */
  changes: string;
  createdBy: string | null;
  /** The release it republishes (a rollback), else null. */
  rollbackOf: number | null;
  /** Id of the release the caller diffed against (null: there was none). */
  expectedCurrent: number | null;
  /** Code and file texts to keep by hash with it (as {@link Store.putBundle}; present ones are kept). */
  blobs: Array<{ hash: string; code: string }>;
}

/** What {@link Store.publishRelease} did. */
export type PublishReleaseOutcome =
  | { ok: true; id: number; createdAt: number }
  /** Another release was published since the caller read `expectedCurrent`; nothing was written. */
  | { ok: false; current: number | null };

/** The delay before another attempt of a run whose lease expired: its failed attempt (1-based) and its backoff policy. */
export type RetryDelay = (attempt: number, backoff: BackoffPolicy) => number;

/** How a {@link Store.watch} watcher is called (see there). */
export interface WatchOptions {
  othersOnly?: boolean;
  notifiedOnly?: boolean;
  catchUp?: boolean;
}

/** The storage interface every engine part talks to. */
export interface Store {
  /** Short name for messages: `sqlite` or `postgres`. */
  readonly kind: string;
  /** Where the data lives (see {@link StoreLocation}). */
  readonly location: StoreLocation;
  /**
   * True when a `suspend` creates the children that ask for it (`claimFor`) leased, and answers
   * their claims (`claimed`) for the suspending worker to run. Absent: never mark children so.
   */
  readonly leasesChildren?: boolean;
  /** The store's clock (database clock on Postgres). */
  now(): Promise<number>;
  /**
   * Prepares the store for a long run of commits (a process that runs a worker calls it once
   * before it starts): SQLite grows its write-ahead log ahead of the first commits
   * (`store/sqlite/wal-reserve.ts`). Best effort, changes no data; absent where nothing is needed.
   */
  reserveLog?(): void;

  /** Applies commands in one transaction (group commit); answers each. */
  commit(commands: Command[]): Promise<CommandResult[]>;
  /** Leases up to `limit` runnable runs, highest priority first, and loads their checkpoints. */
  claim(request: ClaimRequest): Promise<ClaimedRun[]>;
  /**
   * Resolves every pending wait on `event` of a waiting run and re-queues those runs. With
   * `bufferMs`, a signal that woke no run is kept that long instead of dropped, and the next
   * `suspend` that parks a wait on `event` takes it (oldest first, each buffered signal once);
   * a signal and a park racing each other meet exactly once (the store serialises them per event).
   */
  signal(event: string, payload: string | null, bufferMs?: number): Promise<SignalOutcome>;
  /**
   * Resolves one pending wait or approval of a waiting run (an approval decision, a
   * resume link) and re-queues the run. Refused when the run is not waiting on that
   * step, the step was already decided, or its deadline has passed. With `audit`, the
   * attempt is recorded whatever its outcome.
   */
  resolveWait(request: ResolveWaitRequest): Promise<ResolveWaitOutcome>;
  /** Records an approval attempt refused before it reached {@link resolveWait} (an invalid form, a link used by the wrong person). */
  recordApprovalEvent(event: Omit<ApprovalEvent, "ts">): Promise<void>;
  /** Approval attempts recorded for a run, oldest first. */
  listApprovalEvents(runId: string): Promise<ApprovalEvent[]>;
  /**
   * The readiness probe's write check: commits a write that needs newly allocated storage, so it
   * fails when the database cannot grow (a full disk) even where a rewrite in place would still
   * succeed. Postgres: a row into a freshly emptied table (a new file, extended by a page). SQLite:
   * a key rewritten in the database, and a page-sized file written and synced beside it, then removed.
   * @throws the store's storage error (`the disk is full` …) when it cannot
   */
  probeWrite(): Promise<void>;
  /** Small named settings and records (API tokens, …): get, put (insert or replace), delete, list by prefix. */
  kvGet(key: string): Promise<string | null>;
  kvPut(key: string, value: string): Promise<void>;
  /**
   * Puts every entry in one atomic write: either all are stored, or none is (a crash or a
   * refused entry leaves every key as it was). A key given more than once takes its last value
   * (`kv-batch.ts`); an empty list writes nothing. For records that must agree (a log entry and
   * the current record it is the latest of).
   * @throws the store's error (storage full, a value the database refuses …) when it cannot write; nothing is written then
   */
  kvPutAll(entries: ReadonlyArray<{ key: string; value: string }>): Promise<void>;
  kvDelete(key: string): Promise<boolean>;
  /**
   * Compare-and-set: writes `value` (null deletes) only if the key's current value is
   * `expected` (null: absent). Returns whether it wrote. For state that several
   * processes update (pipeline joins, debounce windows).
   */
  kvSwap(key: string, expected: string | null, value: string | null): Promise<boolean>;
  kvList(prefix: string): Promise<Array<{ key: string; value: string }>>;
  /**
   * Cancels a run that has not finished (and its unfinished descendants); its lease
   * is fenced. Returns the run's status after the call, or null if it does not exist.
   */
  cancel(runId: string, reason: string | null): Promise<RunStatus | null>;
  /**
   * Gives a finished `failed` or `cancelled` run another attempt: back to `pending` now,
   * keeping its checkpoints (finished steps are not repeated). Returns the status
   * afterwards, or null if the run does not exist; other statuses are left alone.
   */
  retry(runId: string): Promise<RunStatus | null>;
  /**
   * Ends expired leases: another attempt if attempts remain, ready after
   * `retryDelayMs(failed attempt, the run's own backoff)`, else `failed`. Returns the ids handled.
   * The run's error is `LEASE_RELEASED` (with `data.reason`) for a lease a release heartbeat
   * ended (its stored length a release mark), else `LEASE_EXPIRED`: `reclaimError` in
   * `store/run-errors.ts`, read from the row in the same transaction, so a release is told from
   * an expiry whichever process reclaims it.
   * First looks at leases written by a clock ahead of the store's (ending more than their length
   * plus the tolerance from now; `store/clock-reanchor.ts` `leaseAheadAction`): notes each when
   * first found, and ends (and so reclaims) those still noted a lease length later; a claim or a
   * renewal clears the note, so a live worker's lease is never ended. Compare-and-set on the
   * lease's end.
   */
  reclaimExpired(limit: number, retryDelayMs: RetryDelay): Promise<string[]>;
  /** Earliest `ready_at` among runs these workers could claim, or null. */
  nextReadyAt(workflows: readonly string[], queues?: readonly string[]): Promise<number | null>;
  /**
   * Per worker group (queue), the earliest `ready_at` of its pending or waiting runs of
   * these workflows: a group whose time has come has runnable work, the others say when
   * they will. Queues without such runs are absent. The lane supervisor's question
   * ("which worker groups need a worker now, and when next?").
   */
  readyByQueue(workflows: readonly string[]): Promise<QueueReadiness[]>;

  /** Figures for `/metrics`, each from one grouped query, read at scrape time (see {@link StoreMetrics}). */
  metricsSnapshot(): Promise<StoreMetrics>;
  /**
   * Figures of the UI's overview page for the window from `request.from` until now (see
   * {@link StoreOverview}), read through the finished-at and status indexes: every run that
   * matters to the window has either finished in it or not finished yet. Never fails on an
   * empty database; a `bucketMs` under 1 is the caller's mistake (the HTTP layer checks it).
   */
  overview(request: OverviewRequest): Promise<StoreOverview>;

  getRun(id: string): Promise<RunRecord | null>;
  /** The runs among `ids` that exist (any order). */
  getRuns(ids: readonly string[]): Promise<RunRecord[]>;
  listRuns(filter: RunFilter): Promise<RunRecord[]>;
  countRuns(filter: Omit<RunFilter, "limit" | "beforeSeq">): Promise<number>;
  getSteps(runId: string): Promise<StepRecord[]>;
  getLogs(runId: string, afterSeq?: number): Promise<LogRecord[]>;
  /** Log lines across runs (`sluice logs`), each with its run's workflow; see {@link LogFilter}. */
  listLogs(filter: LogFilter): Promise<Array<LogRecord & { workflow: string }>>;
  /**
   * The highest `seq` of a stored log line, whatever its run or time (0 when there is none): where
   * `sluice logs --follow` stands in the log, so that it reads only the lines stored since (a seek
   * on the primary key). On Postgres a line numbered below it may still be committing.
   */
  lastLogSeq(): Promise<number>;

  /**
   * After the store's clock was set back: moves the due time of each run due later whose row was
   * written more than a minute "in the future" to now plus what was left of its delay (and its
   * pending steps' wake times by as much), by the rule of `store/clock-reanchor.ts`; a `runAt`
   * chosen for a run not started yet is kept. A cron schedule whose next tick such a clock wrote
   * gets the cron's next tick after now. Returns how many runs and schedules moved. The scheduler
   * calls it.
   */
  reanchorDueTimes(): Promise<number>;
  /** Deletes up to `batch` runs finished before `finishedBefore` (with their steps and logs); returns how many. */
  deleteFinished(finishedBefore: number, batch: number): Promise<number>;

  /** Publishes workflow definitions (name → current version, group, schedule); publishing a removed name restores it. */
  registerWorkflows(workflows: WorkflowInfo[]): Promise<void>;
  /** Marks workflows as removed (their module was deleted): no longer listed, kept for {@link getWorkflow} to explain. */
  removeWorkflows(names: readonly string[]): Promise<void>;
  /** Published workflows, by name (removed ones are not listed). */
  listWorkflows(): Promise<WorkflowInfo[]>;
  /** One workflow by name, removed or not (see `removedAt`); null if it was never published. */
  getWorkflow(name: string): Promise<WorkflowInfo | null>;
  /** Stores a module bundle by content hash (no-op if present). */
  putBundle(hash: string, code: string): Promise<void>;
  getBundle(hash: string): Promise<string | null>;

  /**
   * Publishes a release in one transaction: its blobs, then the release row numbered after the
   * current one. Refused, writing nothing, when the current release is no longer
   * `expectedCurrent` (two deploys raced: the later one must diff again).
   */
  publishRelease(request: PublishReleaseRequest): Promise<PublishReleaseOutcome>;
  /** Id of the current (newest) release, or null before the first deploy. Cheap: workers poll it. */
  currentReleaseId(): Promise<number | null>;
  /**
   * One release with its manifest, or null when there is no such release.
   * @throws InvalidReleaseError when the stored manifest is not whole (`core/release.ts`)
   */
  getRelease(id: number): Promise<ReleaseRecord | null>;
  /** Releases newest first, without their manifests; at most `limit`. */
  listReleases(limit: number): Promise<ReleaseSummary[]>;
  /** Bundle hashes of the modules of each release (which release a run used: `core/release.ts` `releaseOfRun`). */
  releaseBundles(): Promise<Array<{ id: number; createdAt: number; bundles: string[] }>>;

  /**
   * Replaces `owner`'s cron schedules with `entries` (default owner `process`): removes that
   * owner's schedules not listed, adds or updates the listed ones (taking a workflow's schedule
   * over from the other owner), keeps `nextAt` of unchanged ones and never touches the other
   * owner's schedules (`store/schedule-sync.ts`). Serialised across processes.
   */
  syncSchedules(
    entries: Array<{ workflow: string; cron: string; timezone: string; nextAt: number | null }>,
    owner?: ScheduleOwner,
  ): Promise<void>;
  listSchedules(): Promise<ScheduleRecord[]>;
  /** Pauses or resumes a schedule; false if there is none for that workflow. */
  setSchedulePaused(workflow: string, paused: boolean): Promise<boolean>;
  /** See {@link FireScheduleRequest}. Returns false if the tick was already taken. */
  fireSchedule(request: FireScheduleRequest): Promise<boolean>;

  /**
   * Takes or keeps the leadership `name` (e.g. `"scheduler"`) for `holder` (an id unique
   * to the caller); true while `holder` leads. At most one holder leads a name at a time
   * among all processes on the database; call it again at least every `ttlMs / 3` to
   * keep it. Postgres holds a session advisory lock on a dedicated connection (freed by
   * the server the moment the leader's process dies); SQLite keeps a lease row that
   * another holder takes once `ttlMs` has passed without renewal, or, when a holder whose
   * clock runs ahead wrote it, once it was found ahead and not renewed for a whole `ttlMs`
   * (`store/leadership-rule.ts`).
   */
  lead(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Gives up leadership `name` if `holder` holds it, so another can take it at once. */
  resign(name: string, holder: string): Promise<void>;

  /**
   * Calls `onChange` soon after any process commits a change (SQLite polls its
   * data version; Postgres uses LISTEN/NOTIFY). Returns an unsubscribe function.
   * With `othersOnly`, changes committed through this store object itself are left out
   * (SQLite never reports them: its data version moves only for other connections); the
   * periodic safety-net call of Postgres still comes, unless `notifiedOnly` (for a caller
   * with a safety-net poll of its own). With `catchUp`, Postgres also calls it once its LISTEN
   * is in place, for what was committed before (whose NOTIFY reached nobody).
   */
  watch(onChange: () => void, options?: WatchOptions): () => void;
  close(): Promise<void>;
}
