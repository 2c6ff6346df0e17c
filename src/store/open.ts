/**
 * Choosing a store from one setting: a `postgres://` (or `postgresql://`) URL opens
 * the Postgres store, anything else is a SQLite file path. Every CLI command and
 * `createEngine({ database })` go through here.
 */
import { type Clock } from "../core/clock.js";
import { isPostgresUrl, locationOf, parsePostgresTarget, type PostgresOptions } from "./postgres/config.js";
import { InvalidDatabaseUrlError } from "./postgres/errors.js";
import { openPostgresOnDemand } from "./postgres/on-demand.js";
import { openSqliteStore } from "./sqlite/store.js";
import type { Store, StoreLocation } from "./types.js";

/** Options of {@link openStore}; each applies to the store kind that has it. */
export interface OpenStoreOptions extends PostgresOptions {
  /** SQLite: the store's clock (tests). Postgres always uses the database clock. */
  clock?: Clock;
  /** SQLite: open a file this process may not write read-only instead of failing (for read commands). */
  readOnlyFallback?: boolean;
}

/**
 * Opens the store named by `urlOrPath`. SQLite opens (and migrates) at once;
 * Postgres connects and migrates on first use: await {@link storeReady} to surface
 * an unreachable database or a schema newer than this Sluice at startup.
 * @throws InvalidDatabaseUrlError for a malformed Postgres URL
 */
/**
 * Refuses a setting that is a URL of something other than Postgres (`postgress://…`,
 * `mysql://…`): read as a SQLite path it would create a file named after the URL, password
 * included. @throws InvalidDatabaseUrlError naming only the scheme
 */
export function checkDatabaseSetting(urlOrPath: string): void {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(urlOrPath)?.[1];
  if (scheme === undefined || isPostgresUrl(urlOrPath)) return;
  throw new InvalidDatabaseUrlError(
    `the database setting is a ${scheme}:// URL, and Sluice opens Postgres (postgres:// or postgresql://) or a SQLite file path: check the URL's scheme (--db, SLUICE_DATABASE_URL, sluice.json "database")`,
  );
}

export function openStore(urlOrPath: string, options: OpenStoreOptions = {}): Store {
  checkDatabaseSetting(urlOrPath);
  // Loaded on first use: a SQLite process never imports the Postgres store (see on-demand.ts).
  if (isPostgresUrl(urlOrPath)) return openPostgresOnDemand(urlOrPath, options);
  return openSqliteStore({
    path: urlOrPath,
    ...(options.clock ? { clock: options.clock } : {}),
    readOnlyFallback: options.readOnlyFallback ?? false,
  });
}

/**
 * Where the store named by `urlOrPath` keeps its data, without opening it (what
 * {@link Store.location} of the opened store would be; a Postgres URL is parsed, not dialled).
 * @throws InvalidDatabaseUrlError for a malformed Postgres URL
 */
export function storeLocationOf(urlOrPath: string): StoreLocation {
  checkDatabaseSetting(urlOrPath);
  if (!isPostgresUrl(urlOrPath)) return { kind: "file", path: urlOrPath };
  return locationOf(parsePostgresTarget(urlOrPath));
}

/**
 * Resolves once `store` is connected and migrated.
 * @throws DatabaseUnreachableError, SchemaTooNewError
 */
export async function storeReady(store: Store): Promise<void> {
  const ready = (store as { ready?: () => Promise<void> }).ready;
  if (typeof ready === "function") await ready.call(store);
}

/** The setting with any password hidden, for messages and logs. */
export function describeDatabase(urlOrPath: string): string {
  if (!isPostgresUrl(urlOrPath)) return urlOrPath;
  try {
    const u = new URL(urlOrPath);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "postgres://(unparseable URL)";
  }
}

export { isPostgresUrl };
