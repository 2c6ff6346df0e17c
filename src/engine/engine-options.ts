/** The engine's options (public) and the worker settings read from them (pure). */
import type { ScheduleChange } from "../store/schedule-sync.js";
import type { Duration } from "../core/duration.js";
import { durationOption } from "../core/duration-option.js";
import type { Retention } from "../core/retention.js";
import type { AssetSdkHost } from "../sdk/windmill/asset-host.js";
import type { AnyWorkflow } from "../sdk/workflow.js";
import type { LogLine, RunRecord, Store } from "../store/types.js";
import type { WorkerOptions } from "../worker/worker-options.js";

/** Options of {@link createEngine}. */
export interface EngineOptions {
  /** A store to use (the engine does not close it). Default: SQLite at `database`. */
  store?: Store;
  /**
   * When no `store` is given: a SQLite file, or a `postgres://` URL (see `openStore`).
   * Default `.sluice/sluice.db` in the working directory.
   */
  database?: string;
  /** Workflows to register. More can be added with `register`. */
  workflows?: AnyWorkflow[];
  /** Run a worker in this process (default true), with these options. */
  worker?: boolean | EngineWorkerOptions;
  /**
   * This server's name, to which `local: true` workflows are scoped on a shared
   * (Postgres) database. Default `SLUICE_SERVER_NAME`, else the host name.
   */
  server?: string;
  /**
   * @internal This process runs the database's current release (`--release`): the shared cron schedules of
   * its own workflows are the release's (published by `sluice deploy`, owner `release`), so its
   * scheduler writes only those of out-of-process workers. Default false.
   */
  releaseSchedules?: boolean;
  /** Run the scheduler (cron, retention) in this process. Default true. */
  scheduler?:
    | boolean
    | {
        /** How often the scheduler looks for due cron fires and retention work. Default `"1s"`. */
        tick?: Duration;
        /** The earlier name of `tick`, in ms. @deprecated Use `tick` (a Duration; a number is ms). */
        tickMs?: number;
        onLeadership?: (leading: boolean) => void;
        /**
         * @internal Told the schedules a sync of this process's code removed or changed (a folder
         * server prints them: see `store/schedule-sync.ts` `describeScheduleSync`).
         */
        onScheduleChanges?: (changes: ScheduleChange[]) => void;
      };
  /** Keep finished runs this long; default 184 days; `"forever"` keeps them. */
  retention?: Retention;
  /** Sleeps up to this long run inline, holding the slot; longer ones park the run. Default `"30s"`. */
  inlineSleep?: Duration;
  /** The earlier name of `inlineSleep`, in ms. @deprecated Use `inlineSleep` (a Duration; a number is ms). */
  inlineSleepMs?: number;
  /** Largest payload/step result/run result (bytes). Default 1 MiB. */
  maxValueBytes?: number;
  /** Route console output of runs into their logs (`console` is patched once, when the engine starts). Default true. */
  captureConsole?: boolean;
  /** Print captured log lines as they happen. */
  echo?: (line: LogLine, run: RunRecord) => void;
  /** Randomness for jitter (tests pin it). */
  random?: () => number;
  /**
   * Public URL that resume/approval links point at. Default `SLUICE_PUBLIC_URL` (or the
   * older `SLUICE_BASE_URL`), else the URL a `sluice server`/`dev` recorded in the
   * database ({@link Engine.recordPublicUrl}), else http://127.0.0.1:7777.
   */
  baseUrl?: string;
  /**
   * Key material that seals the secrets kept in the database (at least 16 characters). Default
   * `SLUICE_SECRET_KEY`, else a key file: `secret.key` beside a SQLite file, `.sluice/secret.key`
   * for Postgres (give every server the same `SLUICE_SECRET_KEY` instead).
   */
  secretKey?: string;
  /**
   * Asked before every enqueue with the runs' worker group and workflow; throwing refuses the
   * enqueue with that error (a server refuses groups whose worker lane crashed at startup, and
   * the workflows of a worker command whose lane did).
   */
  admit?: (group: string, store: Store, workflow: string) => void | Promise<void>;
}

/** Worker settings of {@link EngineOptions.worker}; durations follow `core/duration-option.ts`. */
export interface EngineWorkerOptions {
  /** Runs executed at once. Default 500. */
  concurrency?: number;
  /** Worker groups to claim from; default every group. */
  queues?: string[];
  /** Server name for `local: true` workflows (default the engine's `server`). */
  server?: string;
  /** Lease length; heartbeats every third of it. Default `"30s"`. */
  lease?: Duration;
  /** Longest idle wait before re-checking the store, a safety net under notifications. Default `"1s"`. */
  poll?: Duration;
  /** Identifies this worker in leases. Default host, pid and a random suffix. */
  workerId?: string;
  /** The earlier name of `lease`, in ms. @deprecated Use `lease` (a Duration; a number is ms). */
  leaseMs?: number;
  /** The earlier name of `poll`, in ms. @deprecated Use `poll` (a Duration; a number is ms). */
  pollMs?: number;
}

/** The worker's settings from the public options. */
export function workerSettings(o: EngineWorkerOptions): Partial<WorkerOptions> {
  const { lease, poll, leaseMs, pollMs, ...rest } = o;
  const out: Partial<WorkerOptions> = { ...rest };
  const leaseAt = durationOption(lease, leaseMs);
  const pollAt = durationOption(poll, pollMs);
  if (leaseAt !== undefined) out.leaseMs = leaseAt;
  if (pollAt !== undefined) out.pollMs = pollAt;
  return out;
}

/** Resolves the asset storage for the calling code (see {@link Engine.provideAssetSdk}). */
export type AssetSdkProvider = () => AssetSdkHost | undefined;
