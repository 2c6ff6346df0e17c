/**
 * The rule both stores apply to a batch of key-value puts (`Store.kvPutAll`): a key given more
 * than once takes its last value, so the batch is one write per key (Postgres refuses an upsert
 * that touches a row twice). Pure.
 */

/** One key-value put. */
export interface KvEntry {
  readonly key: string;
  readonly value: string;
}

/** `entries` with one per key, the last given for it, in the order the keys first appear. */
export function lastPerKey(entries: readonly KvEntry[]): KvEntry[] {
  const byKey = new Map<string, string>();
  for (const e of entries) byKey.set(e.key, e.value);
  return [...byKey].map(([key, value]) => ({ key, value }));
}
