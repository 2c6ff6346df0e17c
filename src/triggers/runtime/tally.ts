/**
 * The tally of a trigger whose messages arrive through the API (`data_upload`, `webhook`) on
 * any server rather than through its consumer: each accepted call (new or deduplicated, like a
 * redelivered message) is counted on one key by compare-and-swap, so concurrent calls on any
 * server all count; `list.ts` merges it into the trigger's report.
 */
import type { Store } from "../../store/types.js";
import { countUpload, decodeTally } from "../state.js";
import { stateKeyPrefix } from "./consumer.js";

/** The key of a trigger's tally (in its state: removed with its row). */
export function tallyKey(id: string): string {
  return `${stateKeyPrefix(id)}uploads`;
}

/** Counts one accepted call of trigger `id`. */
export async function tallyDelivery(store: Store, id: string, call: Parameters<typeof countUpload>[1]): Promise<void> {
  const key = tallyKey(id);
  for (let attempt = 0; attempt < 100; attempt++) {
    const before = await store.kvGet(key);
    if (await store.kvSwap(key, before, JSON.stringify(countUpload(decodeTally(before), call)))) return;
  }
}
