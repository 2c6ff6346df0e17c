/**
 * Deterministic run ids of dispatched runs. The same dispatch (same subscriber, same
 * producer run, same window or join generation) always gets the same id, so a producer
 * that dispatches again after a crash deduplicates instead of starting a second run.
 */
import { createHash } from "node:crypto";
import { PipelineRuntimeError } from "./errors.js";

/** A run id for a dispatch: `pl-<kind>-<hash of the parts>`. */
export function dispatchRunId(kind: "c" | "d" | "j" | "f", ...parts: ReadonlyArray<string | number>): string {
  const hash = createHash("sha256").update(parts.map(String).join("\u0001")).digest("hex").slice(0, 24);
  return `pl-${kind}-${hash}`;
}

/** The key-value key of a per-subscriber, per-partition slot (`<prefix><script> <partition>`). */
export function slotKey(prefix: string, script: string, partition: string | undefined): string {
  return `${prefix}${script} ${partition ?? ""}`;
}

/** Read-modify-write of a JSON key-value record with compare-and-set, retried on contention. */
export async function swapJson<S, R>(
  store: {
    kvGet(key: string): Promise<string | null>;
    kvSwap(key: string, expected: string | null, value: string | null): Promise<boolean>;
  },
  key: string,
  update: (current: S | undefined) => { next: S | null | undefined; result: R },
): Promise<R> {
  for (let attempt = 0; ; attempt++) {
    const raw = await store.kvGet(key);
    const { next, result } = update(raw === null ? undefined : (JSON.parse(raw) as S));
    if (next === undefined) return result;
    const value = next === null ? null : JSON.stringify(next);
    if (value === raw || (await store.kvSwap(key, raw, value))) return result;
    if (attempt > 200)
      throw new PipelineRuntimeError(
        "PIPELINE_CONTENTION",
        `could not update ${key}: too many processes changed it at once; the run will be retried`,
      );
    await new Promise((r) => setTimeout(r, Math.min(50, attempt * 2)));
  }
}
