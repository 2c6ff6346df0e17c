/**
 * A worker that starts while its database is briefly unavailable (locked by another process
 * past the busy timeout, disk full, server restarting) waits and retries its start-up writes
 * instead of exiting, for up to `--startup-timeout`: a worker that is already running rides
 * out the same faults (the group committer backs off and retries), and a fresh one should
 * not be the only part that dies of them. A Postgres server that cannot be reached yet
 * (connection refused, host unreachable, a host name not resolvable yet, "the database system
 * is starting up") is waited for the same way. A failure that retrying cannot fix (wrong
 * password, missing database, bad URL, bad schema, a non-storage error) still ends the command
 * at once.
 */
import { pauseUnlessAborted } from "./command.js";
import { isTransientStorageFailure, StorageError, toStorageError } from "../store/storage-error.js";

/**
 * The `--startup-timeout` option of `sluice worker`, `sluice server` and `sluice dev`, with its default
 * (`60s` for the long-running worker and server; `sluice dev` fails at once unless given one).
 */
export function startupTimeoutOption(byDefault: string): readonly [string, string, string] {
  return [
    "--startup-timeout <duration>",
    "how long to keep retrying start-up while the database is locked, full, unreachable or starting up",
    byDefault,
  ] as const;
}

/** How {@link retryStartup} waits and reports. */
export interface StartupRetryOptions {
  /** Give up (rethrow the last failure) once this much time has passed since the first try. */
  timeoutMs: number;
  /** Where "retrying" lines go. */
  write: (line: string) => void;
  /** The command the lines name (default `sluice worker`). */
  command?: string;
  /** Stop waiting when aborted (rethrows the last failure). */
  signal?: AbortSignal;
  /** Current time in ms (tests). */
  now?: () => number;
  /** Waits `ms` (tests). */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * A Postgres connection failure (the store's `DatabaseUnreachableError`, matched by its code:
 * the Postgres store is loaded on demand), with what the driver said.
 */
function unreachableCause(err: unknown): { target: string; reason: string; cause: unknown } | null {
  const e = err as { code?: unknown; target?: unknown; reason?: unknown; cause?: unknown } | null;
  if (e?.code !== "DATABASE_UNREACHABLE") return null;
  return { target: String(e.target), reason: String(e.reason), cause: e.cause };
}

/** True when a start-up failure is the database's and may pass on its own. */
export function retryableAtStartup(err: unknown): boolean {
  // Refused, unreachable, not resolvable, starting up: yes; a wrong password (28P01) or a missing database (3D000): no.
  const unreachable = unreachableCause(err);
  if (unreachable) return isTransientStorageFailure(unreachable.cause);
  return err instanceof StorageError ? err.transient : isTransientStorageFailure(err);
}

/** What a "retrying" line says about `err`. */
function describe(err: unknown): string {
  const unreachable = unreachableCause(err);
  if (unreachable) return `cannot reach Postgres at ${unreachable.target}: ${unreachable.reason}`;
  return toStorageError(err).message;
}

/** Delay before retry number `attempt` (1-based): 250 ms doubling, at most 5 s. */
export function startupBackoff(attempt: number): number {
  return Math.min(5_000, 250 * 2 ** Math.max(0, attempt - 1));
}

/** Runs `fn` (which must be safe to call again after it failed), retrying transient storage failures. */
export async function retryStartup<T>(what: string, fn: () => Promise<T>, options: StartupRetryOptions): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep =
    options.sleep ??
    ((ms: number) =>
      options.signal ? pauseUnlessAborted(options.signal, ms) : new Promise<void>((r) => setTimeout(r, ms)));
  const started = now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const remaining = options.timeoutMs - (now() - started);
      if (!retryableAtStartup(err) || options.signal?.aborted || remaining <= 0) throw err;
      // The last try is at the timeout itself: a database up just before it is not missed.
      const wait = Math.min(startupBackoff(attempt), remaining);
      options.write(
        `${options.command ?? "sluice worker"}: ${what} failed (${describe(err)}); retrying in ${(wait / 1000).toFixed(2)} s: waiting for the database for up to --startup-timeout (${Math.ceil(remaining / 1000)} s left)\n`,
      );
      await sleep(wait);
    }
  }
}
