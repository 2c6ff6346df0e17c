/** The key-value verbs of the SQLite store (see `Store.kvGet`): rows of `meta` under the `kv:` prefix. */
import { type KvEntry, lastPerKey } from "../kv-batch.js";
import type { Statements } from "./statements.js";

const PREFIX = "kv:";
const UPSERT = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value";

/** The value under `key`, or null. */
export function kvGet(s: Statements, key: string): string | null {
  const row = s.get("SELECT value FROM meta WHERE key = ?").get(PREFIX + key) as { value: string } | undefined;
  return row?.value ?? null;
}

/** Sets `key` to `value`. */
export function kvPut(s: Statements, key: string, value: string): void {
  s.get(UPSERT).run(PREFIX + key, value);
}

/** Sets every key of `entries` (the last value of a key given twice); call inside a transaction, so all or none is written. */
export function kvPutAll(s: Statements, entries: readonly KvEntry[]): void {
  for (const e of lastPerKey(entries)) kvPut(s, e.key, e.value);
}

/** Removes `key`; true when it was there. */
export function kvDelete(s: Statements, key: string): boolean {
  return s.get("DELETE FROM meta WHERE key = ?").run(PREFIX + key).changes > 0;
}

/** Compare-and-set (`value` null deletes); call inside an IMMEDIATE transaction. */
export function kvSwap(s: Statements, key: string, expected: string | null, value: string | null): boolean {
  if (kvGet(s, key) !== expected) return false;
  if (value === null) kvDelete(s, key);
  else kvPut(s, key, value);
  return true;
}

/** Every key starting with `prefix`, in key order. */
export function kvList(s: Statements, prefix: string): Array<{ key: string; value: string }> {
  // Range scan instead of LIKE, so `%` and `_` in a prefix mean themselves.
  const from = PREFIX + prefix;
  const rows = s
    .get("SELECT key, value FROM meta WHERE key >= ? AND key < ? ORDER BY key")
    .all(from, `${from}\uffff`) as Array<{ key: string; value: string }>;
  return rows.map((r) => ({ key: r.key.slice(PREFIX.length), value: r.value }));
}
