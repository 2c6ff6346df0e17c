/**
 * Readiness (`GET /api/ready`): may a load balancer or Kubernetes send this process work?
 * Unlike liveness (`/api/health`: the process answers), readiness asks the things the
 * process needs: the database answers and is migrated, a write that needs new space
 * commits (a full disk makes the process not ready), the scheduler
 * knows whether it leads, no worker lane is crashed, and no worker command of `sluice.json`
 * keeps exiting. Each check runs with a time
 * limit, so a hung database makes the probe fail instead of hang.
 */
import type { LaneInfo } from "../lanes/lane.js";
import { storeReady } from "../store/open.js";
import { isDriverFailure, toStorageError } from "../store/storage-error.js";
import type { Store } from "../store/types.js";

/** Result of one readiness check. */
export interface ReadinessCheck {
  ok: boolean;
  /** What was found (when ok) or why it failed. */
  detail: string;
}

/** Answer of `GET /api/ready`. */
export interface Readiness {
  ready: boolean;
  checks: {
    database: ReadinessCheck;
    write: ReadinessCheck;
    scheduler: ReadinessCheck;
    lanes: ReadinessCheck;
    workers: ReadinessCheck;
  };
}

/** A worker command's health (`cli/worker-command-policy.ts` decides it). */
export interface WorkerCommandState {
  label: string;
  ok: boolean;
  detail: string;
}

/** What the readiness probe looks at. */
export interface ReadinessSources {
  store: Store;
  /** The scheduler's leadership (see `Scheduler.leadership`), or null when this process runs no scheduler. */
  leadership: (() => { state: "leader" | "standby" | "unknown"; checkedAt: number | null }) | null;
  /** The lane supervisor's lanes, or null when this process supervises none. */
  lanes: (() => LaneInfo[]) | null;
  /** The worker commands of `sluice.json` this process started, or null when it starts none. */
  workerCommands?: (() => WorkerCommandState[]) | null;
  /** Per-check time limit, ms (default 3 000). */
  timeoutMs?: number;
}

/** Key of the store record the database check reads. */
const READY_PROBE_KEY = "sluice:ready-probe";

/** The scheduler check from its leadership state (pure). */
export function schedulerCheck(state: "leader" | "standby" | "unknown" | null): ReadinessCheck {
  if (state === null) return { ok: true, detail: "no scheduler in this process" };
  if (state === "unknown")
    return { ok: false, detail: "leadership unknown: the scheduler has not had an answer from the database lately" };
  return { ok: true, detail: state };
}

/**
 * The lanes check from the supervisor's lanes (pure): a crashed lane (its worker failed before its
 * first claim, or could not be started at all) is unhealthy, with the reason.
 */
export function lanesCheck(lanes: LaneInfo[] | null): ReadinessCheck {
  if (lanes === null) return { ok: true, detail: "no lanes supervised by this process" };
  const crashed = lanes.filter((l) => l.mode === "crashed");
  if (crashed.length > 0)
    return {
      ok: false,
      detail: `crashed worker group(s): ${crashed.map((l) => (l.error ? `${l.group} (${l.error})` : l.group)).join("; ")} (see the server's log)`,
    };
  return { ok: true, detail: `${lanes.length} lane(s), none crashed` };
}

/** The worker commands check (pure): one that keeps exiting is unhealthy, with its cause and last output. */
export function workerCommandsCheck(commands: WorkerCommandState[] | null): ReadinessCheck {
  if (commands === null || commands.length === 0)
    return { ok: true, detail: "no always-on worker commands started by this process" };
  const failing = commands.filter((c) => !c.ok);
  if (failing.length > 0) return { ok: false, detail: failing.map((c) => c.detail).join("; ") };
  return { ok: true, detail: `${commands.length} worker command(s), none failing` };
}

/** Runs every check and answers whether the process is ready. */
export async function checkReadiness(sources: ReadinessSources): Promise<Readiness> {
  const limit = sources.timeoutMs ?? 3_000;
  const { store } = sources;
  const database = await timed(limit, async () => {
    await storeReady(store);
    await store.now();
    await store.kvGet(READY_PROBE_KEY); // a read that reaches the database on every store
    return `${store.kind} reachable and migrated`;
  });
  const write = database.ok
    ? await timed(limit, async () => {
        // A write that needs new space: a rewrite in place would pass on a full disk (`Store.probeWrite`).
        await store.probeWrite();
        return "a write that needs new space committed";
      })
    : { ok: false, detail: "skipped: the database is not reachable" };
  const checks = {
    database,
    write,
    scheduler: schedulerCheck(sources.leadership ? sources.leadership().state : null),
    lanes: lanesCheck(sources.lanes ? sources.lanes() : null),
    workers: workerCommandsCheck(sources.workerCommands ? sources.workerCommands() : null),
  };
  return { ready: Object.values(checks).every((c) => c.ok), checks };
}

async function timed(limitMs: number, probe: () => Promise<string>): Promise<ReadinessCheck> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<ReadinessCheck>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${limitMs} ms` }), limitMs);
  });
  try {
    return await Promise.race([
      probe().then(
        (detail): ReadinessCheck => ({ ok: true, detail }),
        (err: unknown): ReadinessCheck => ({
          ok: false,
          detail: isDriverFailure(err) ? toStorageError(err).message : (err as Error).message,
        }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
