/**
 * `local: true` workflows on a shared (Postgres) database: each server keeps its own
 * queue and cron for them, as if it had its own storage (seed 002, "Storage And
 * Multiple Servers"). A local workflow's runs go to the queue `group@server` that only
 * that server's workers claim, a caller-chosen run id is scoped to the server
 * (`id@server`, so ids do not deduplicate across servers), and its cron fires once per
 * server. On SQLite every process shares one machine, so nothing is scoped.
 */
import { hostname } from "node:os";
import type { EnqueueRequest, Store } from "./types.js";

/** This process's server name: `SLUICE_SERVER_NAME`, else the host name. */
export function defaultServerName(env: Record<string, string | undefined> = process.env): string {
  return env.SLUICE_SERVER_NAME?.trim() || hostname();
}

/** The server that `local: true` workflows are scoped to, or null when the store is not shared across hosts. */
export function localServerFor(store: Store, server: string | undefined): string | null {
  return store.location.kind === "server" ? (server ?? defaultServerName()) : null;
}

/** The queue of a local workflow's runs on `server`. */
export function localQueue(queue: string, server: string): string {
  return `${queue}@${server}`;
}

/** Scopes enqueue requests of a local workflow to `server` (queue, and the id when the caller chose it). */
export function scopeToServer(requests: EnqueueRequest[], server: string): void {
  for (const r of requests) {
    r.queue = localQueue(r.queue, server);
    if (r.dedupe) r.id = `${r.id}@${server}`;
  }
}

/** The worker groups a worker limited to `groups` claims on `server`: each group, shared and local. */
export function claimGroups(groups: readonly string[] | undefined, server: string | undefined): string[] | undefined {
  if (!groups || !server) return groups ? [...groups] : undefined;
  return [...groups, ...groups.map((g) => localQueue(g, server))];
}
