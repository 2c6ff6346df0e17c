/**
 * Undoing the Postgres capture of a trigger whose row is gone: the table trigger and the
 * outbox changes it left in the watched database (and the `sluice_triggers` schema once
 * nothing uses it). The consumer records where it installed a capture in the trigger's state
 * ({@link INSTALLED_KEY}); {@link sweepRemovedTriggers} runs whenever a server reads its rows
 * (start-up, and each change of the rows in `sluice dev`), so a row removed while no server
 * ran is undone at the next start.
 */
import { createRequire } from "node:module";
import type * as pg from "pg";
import type { Store } from "../../store/types.js";
import { stateKeyPrefix } from "./consumer.js";
import { INSTALLED_KEY, type InstalledCapture, uninstallCapture } from "./postgres-outbox.js";

/** `trigger:state:`, the start of every trigger state key. */
const STATE_PREFIX = stateKeyPrefix("").slice(0, -1);

/** Parses a recorded capture (null when unreadable). */
export function decodeInstalled(text: string | null): InstalledCapture | null {
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as InstalledCapture;
    return typeof v.schema === "string" && typeof v.table === "string" ? v : null;
  } catch {
    return null;
  }
}

/** True when two captures are the same table of the same database. */
export function sameCapture(a: InstalledCapture, b: InstalledCapture): boolean {
  return a.url === b.url && a.urlEnv === b.urlEnv && a.schema === b.schema && a.table === b.table;
}

/** Connects to the recorded database and uninstalls the trigger's capture. @returns whether the schema went too */
export async function removeCapture(
  triggerId: string,
  at: InstalledCapture,
  env: Record<string, string | undefined>,
): Promise<boolean> {
  const url = at.url ?? env[at.urlEnv ?? ""];
  if (!url) throw new Error(`the environment variable ${at.urlEnv} (the watched database's URL) is not set`);
  const { Client } = createRequire(import.meta.url)("pg") as typeof pg;
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await uninstallCapture(c, triggerId, at);
  } finally {
    await c.end().catch(() => {});
  }
}

/**
 * Forgets every trigger not in `keep`: uninstalls its Postgres capture when it had one, then
 * deletes its state keys. A capture that cannot be removed now (database down) keeps its
 * record and is tried again at the next sweep.
 */
export async function sweepRemovedTriggers(
  store: Store,
  keep: ReadonlySet<string>,
  env: Record<string, string | undefined>,
  log: (line: string) => void,
): Promise<void> {
  const byId = new Map<string, Array<{ key: string; name: string; value: string }>>();
  for (const row of await store.kvList(STATE_PREFIX)) {
    const rest = row.key.slice(STATE_PREFIX.length);
    const cut = rest.lastIndexOf(":");
    if (cut <= 0) continue;
    const id = rest.slice(0, cut);
    if (keep.has(id)) continue;
    byId.set(id, [...(byId.get(id) ?? []), { key: row.key, name: rest.slice(cut + 1), value: row.value }]);
  }
  for (const [id, rows] of byId) {
    const installed = decodeInstalled(rows.find((r) => r.name === INSTALLED_KEY)?.value ?? null);
    if (installed) {
      try {
        const dropped = await removeCapture(id, installed, env);
        log(
          `trigger ${id}: removed; its table trigger on ${installed.schema}.${installed.table} was dropped${dropped ? " (and the sluice_triggers schema, now unused)" : ""}\n`,
        );
      } catch (err) {
        log(
          `trigger ${id}: removed, but its table trigger on ${installed.schema}.${installed.table} could not be dropped yet: ${(err as Error).message}\n`,
        );
        continue;
      }
    }
    for (const r of rows) await store.kvDelete(r.key);
  }
}
