import { isAcceptedDuration } from "../../core/time.js";
import { InvalidInputError } from "../errors.js";
import { requireHost } from "./host.js";
import type { ApprovalOptions, ApprovalResult, ResumeUrls } from "./types.js";

/**
 * Runs `fn` inline and persists its result; a replay returns the saved value without
 * running it. For values that must be stable across replays: timestamps, ids, config.
 * @example const ts = await step("timestamp", () => Date.now());
 */
export function step<T>(name: string, fn: () => T | Promise<T>): Promise<Awaited<T>> {
  return requireHost("step()").step(name, fn) as Promise<Awaited<T>>;
}

/**
 * Suspends the workflow server-side for `seconds` (minimum 1, rounded); the worker
 * slot is released meanwhile.
 * @example await sleep(3600);
 */
export function sleep(seconds: number): Promise<void> {
  if (typeof seconds !== "number" || !isAcceptedDuration(seconds * 1000)) {
    throw new InvalidInputError(
      `sleep() takes a number of seconds (at most 1000 years), got ${JSON.stringify(seconds)}`,
      { code: "INVALID_DURATION" },
    );
  }
  return requireHost("sleep()").sleepSeconds(seconds);
}

/**
 * Suspends the workflow until a person approves or rejects it (or `timeout` seconds
 * pass, default 1800). Returns `{ value, approver, approved }`; `approved` is false and
 * `value` null on rejection or timeout.
 */
export function waitForApproval<V = any>(options: ApprovalOptions = {}): Promise<ApprovalResult<V>> {
  return requireHost("waitForApproval()").waitForApproval(options) as Promise<ApprovalResult<V>>;
}

/**
 * Signed, single-use URLs bound to this run's next approval wait: a page, and POST
 * endpoints to approve and reject. Call it inside a `step` so replays reuse the URLs.
 * @example const urls = await step("urls", () => getResumeUrls());
 */
export async function getResumeUrls(approver?: string): Promise<ResumeUrls> {
  return requireHost("getResumeUrls()").resumeUrls(approver ?? null);
}

/**
 * Maps `items` through `fn` with at most `concurrency` calls in flight (default: all at
 * once) and returns the results in input order.
 * @example const results = await parallel(items, (item) => task(process)(item), { concurrency: 5 });
 */
export async function parallel<T, R>(
  items: readonly T[],
  fn: (item: T, index: number) => Promise<R> | R,
  options: { concurrency?: number } = {},
): Promise<R[]> {
  const limit = options.concurrency ?? items.length;
  if (!Number.isInteger(limit) || limit < 1) {
    if (items.length === 0) return [];
    throw new InvalidInputError(
      `parallel() concurrency must be a whole number >= 1, got ${JSON.stringify(options.concurrency)}`,
    );
  }
  if (limit >= items.length) return Promise.all(items.map((item, i) => fn(item, i)));
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: limit }, lane));
  return results;
}
