/**
 * The tally of a trigger whose messages arrive through the API (`data_upload`, `webhook`) on
 * any server rather than through its consumer: each accepted call (new or deduplicated, like a
 * redelivered message) is counted on one key by compare-and-swap, so concurrent calls on any
 * server all count; `list.ts` merges it into the trigger's report.
 */
import type { Store } from "../../store/types.js";
import { countUpload, decodeTally, failUpload, type UploadTally } from "../state.js";
import { stateKeyPrefix } from "./consumer.js";

/** The key of a trigger's tally (in its state: removed with its row). */
export function tallyKey(id: string): string {
  return `${stateKeyPrefix(id)}uploads`;
}

/** Counts one accepted call of trigger `id`. */
export function tallyDelivery(store: Store, id: string, call: Parameters<typeof countUpload>[1]): Promise<void> {
  return swapTally(store, id, (t) => countUpload(t, call));
}

/** Keeps the reason a call of trigger `id` was refused as its last error. */
export function tallyFailure(store: Store, id: string, failure: Parameters<typeof failUpload>[1]): Promise<void> {
  return swapTally(store, id, (t) => failUpload(t, failure));
}

async function swapTally(store: Store, id: string, next: (t: UploadTally | null) => UploadTally): Promise<void> {
  const key = tallyKey(id);
  for (let attempt = 0; attempt < 100; attempt++) {
    const before = await store.kvGet(key);
    if (await store.kvSwap(key, before, JSON.stringify(next(decodeTally(before))))) return;
  }
}
