/**
 * Housekeeping of pipeline slots in the key-value records: a join slot with nothing
 * collected since its last firing, and a closed debounce window, are deleted once old
 * (compare-and-set, so a slot updated meanwhile is kept). A deleted slot that is fed again
 * starts afresh with new run ids (its epoch or window start is part of them).
 */
import type { Store } from "../../store/types.js";
import { DEBOUNCE_PREFIX, type DebounceState } from "./debounce.js";
import { JOIN_PREFIX, type JoinState } from "./join.js";

/** How old idle slots must be before they are deleted. */
export interface PruneAges {
  /** Join slots: since their last firing. Default 30 days. */
  readonly joinMs?: number;
  /** Closed debounce windows: since their end. Default 1 day. */
  readonly debounceMs?: number;
}

/** Deletes idle slots; returns how many. */
export async function pruneSlots(store: Store, now: number, ages: PruneAges = {}): Promise<number> {
  const joinMs = ages.joinMs ?? 30 * 86_400_000;
  const debounceMs = ages.debounceMs ?? 86_400_000;
  let deleted = 0;
  for (const row of await store.kvList(JOIN_PREFIX)) {
    const s = JSON.parse(row.value) as JoinState;
    if (
      Object.keys(s.inputs).length === 0 &&
      s.fired &&
      now - s.fired.at > joinMs &&
      (await store.kvSwap(row.key, row.value, null))
    )
      deleted++;
  }
  for (const row of await store.kvList(DEBOUNCE_PREFIX)) {
    const s = JSON.parse(row.value) as DebounceState;
    if (!s.open && now - s.until > debounceMs && (await store.kvSwap(row.key, row.value, null))) deleted++;
  }
  return deleted;
}
