/**
 * Retry timing. Pure: randomness is injected so tests can pin the jitter.
 */

/** Exponential backoff bounds in milliseconds. */
export interface BackoffPolicy {
  /** Delay before the first retry. */
  base: number;
  /** Largest delay, after jitter. */
  max: number;
}

/** Run-level default: base 1 s, cap 1 h (DESIGN.md "Run lifecycle"). */
export const RUN_BACKOFF: BackoffPolicy = { base: 1_000, max: 3_600_000 };
/** Step-level default when a step has retries but no backoff of its own. */
export const STEP_BACKOFF: BackoffPolicy = { base: 1_000, max: 60_000 };
/** Retrying a write the database refused (locked, full, I/O error): base 250 ms, cap 10 s. */
export const STORAGE_BACKOFF: BackoffPolicy = { base: 250, max: 10_000 };
/** Default run retries after the first attempt (three attempts in all). */
export const DEFAULT_RUN_RETRIES = 2;
/** Default step retries: none, errors go to the run-level policy. */
export const DEFAULT_STEP_RETRIES = 0;
/** Jitter applied to every delay: ±20 %. */
const JITTER = 0.2;

/**
 * Delay before retrying after `failedAttempt` (1-based) failed:
 * `base * 2^(failedAttempt-1)`, ±20 % jitter, capped at `max`.
 * @param random a source in [0, 1); defaults to Math.random
 */
export function backoffDelay(policy: BackoffPolicy, failedAttempt: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, failedAttempt - 1);
  const raw = Math.min(policy.max, policy.base * 2 ** Math.min(exponent, 52));
  const jittered = raw * (1 - JITTER + 2 * JITTER * random());
  return Math.round(Math.min(policy.max, Math.max(0, jittered)));
}

/**
 * The delay before another attempt of a run whose lease expired (a crashed or stopped worker):
 * the run's own backoff policy, as for a failed attempt, with jitter from `random`.
 */
export function leaseRetryDelay(
  random: () => number = Math.random,
): (attempt: number, policy: BackoffPolicy) => number {
  return (attempt, policy) => backoffDelay(policy, attempt, random);
}

/** Merges a partial user policy (`{ base?, max? }`) over a default one. */
export function resolveBackoff(user: Partial<BackoffPolicy> | undefined, fallback: BackoffPolicy): BackoffPolicy {
  return { base: user?.base ?? fallback.base, max: user?.max ?? fallback.max };
}
