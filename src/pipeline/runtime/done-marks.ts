/**
 * Done marks: which (step, partition) pairs a plan has already finished, and with which
 * code version. A backfill skips a partition whose every step carries a mark of the
 * step's current code version (unless `--force`); a plan skips such a step. One key-value
 * record per pair, `pipeline:done:<step path> <partition>`, so they work on both stores.
 */
import { createHash } from "node:crypto";
import type { Store } from "../../store/types.js";
import { slotKey } from "./ids.js";

/** Key prefix of done marks. */
const DONE_PREFIX = "pipeline:done:";

/** A step that succeeded for a partition. */
export interface DoneMark {
  /** Code version of the step when it ran: a hash of the script's source. */
  readonly version: string;
  /** The plan run that ran the step. */
  readonly run: string;
  readonly at: number;
}

/** The code version of a member script: the first 16 hex digits of the SHA-256 of its source. */
export function codeVersion(source: string): string {
  return createHash("sha256").update(source).digest("hex").slice(0, 16);
}

/** The key of the mark of `step` for `partition`. */
export function doneKey(step: string, partition: string): string {
  return slotKey(DONE_PREFIX, step, partition);
}

/** Reads the mark of a step for a partition, if any. */
export async function readDone(store: Store, step: string, partition: string): Promise<DoneMark | null> {
  const raw = await store.kvGet(slotKey(DONE_PREFIX, step, partition));
  return raw === null ? null : (JSON.parse(raw) as DoneMark);
}

/** Records that `step` succeeded for `partition` at `version` in `run` (the last success wins). */
export async function markDone(store: Store, step: string, partition: string, mark: DoneMark): Promise<void> {
  await store.kvPut(slotKey(DONE_PREFIX, step, partition), JSON.stringify(mark));
}

/** Whether a mark says the step already succeeded at this code version. */
export function isDone(mark: DoneMark | null, version: string): boolean {
  return mark !== null && mark.version === version;
}
