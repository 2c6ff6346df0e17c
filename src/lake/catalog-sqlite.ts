/**
 * A DuckLake catalog in a SQLite file (better-sqlite3).
 *
 * Read-only opens create and modify nothing: SQLite's own read-only open of a WAL database
 * creates the `-wal` and `-shm` files when they are missing (and leaves them), and cannot open
 * one on a read-only path at all. So while a writer has the catalog open (its `-wal` exists)
 * the read goes through SQLite's read-only open, sharing the writer's WAL; otherwise the main
 * file holds every commit, and the read opens a copy of it in memory (read until two reads
 * agree, so a checkpoint landing mid-read is never seen half-done).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { KeyedMutex } from "../assets/keyed-mutex.js";
import { untilNotBusy } from "../store/sqlite/busy.js";
import { Statements } from "../store/sqlite/statements.js";
import type { CatalogDb, CatalogRow } from "./catalog-db.js";
import { TransactionContext } from "./catalog-context.js";

/**
 * Write transactions of this process per catalog file. better-sqlite3 blocks the thread
 * while it waits for SQLite's lock, so two connections of one process must not wait for
 * each other inside SQLite: they queue here instead (other processes wait in SQLite).
 */
const writers = new KeyedMutex();

/** How long a catalog write waits for another process's (SQLite's busy timeout). */
const BUSY_TIMEOUT_MS = 10_000;

/** Options of {@link openSqliteCatalog}. */
export interface SqliteCatalogOptions {
  /** Open read-only (the file must exist). */
  readonly readonly?: boolean;
  /** Create the file when missing. */
  readonly create?: boolean;
}

/** Compiled statements kept per connection (the catalog code's statements number a few dozen). */
const MAX_CACHED_STATEMENTS = 256;

const toParam = (v: unknown): unknown => (typeof v === "boolean" ? (v ? 1 : 0) : v);

/** Reads of the main file until two agree. */
const IMAGE_READS = 6;

/**
 * The catalog file as a consistent image (two reads in a row byte-equal), its WAL flag
 * cleared (header bytes 18-19: 2 = WAL, 1 = rollback journal; an in-memory database has no WAL,
 * and without a `-wal` file the main file is complete).
 */
function catalogImage(path: string): Buffer {
  let last = readFileSync(path);
  for (let i = 1; i < IMAGE_READS; i++) {
    const next = readFileSync(path);
    if (next.equals(last)) {
      if (next.length >= 20 && next[18] === 2 && next[19] === 2) next[18] = next[19] = 1;
      return next;
    }
    last = next;
  }
  throw new Error(`the lake catalog ${path} changed on every read (a writer checkpointing); try again`);
}

/** A read-only connection that creates and changes nothing on disk (see the module comment). */
function openReadOnly(path: string): Database.Database {
  if (existsSync(`${path}-wal`)) return new Database(path, { readonly: true, fileMustExist: true });
  return new Database(catalogImage(path), { readonly: true });
}

/** Open a SQLite catalog file (read-only: creating and modifying nothing, see the module comment). */
export function openSqliteCatalog(path: string, options: SqliteCatalogOptions = {}): CatalogDb {
  const db = options.readonly
    ? openReadOnly(path)
    : new Database(path, { readonly: false, fileMustExist: !options.create });
  if (!options.readonly) {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Switching a new file to WAL while another process creates it (two workers writing a lake's
    // first partitions at once) is answered SQLITE_BUSY without the busy handler: retried.
    untilNotBusy(BUSY_TIMEOUT_MS, () => {
      db.pragma("journal_mode = WAL");
      // FULL: a snapshot is on disk when its commit returns, as is every data file it names
      // (file-staging.ts flushes them first), so a materialization Sluice records as written
      // survives an OS crash or power loss too, not only a killed process.
      db.pragma("synchronous = FULL");
    });
  }
  // The catalog code sends a small, fixed set of statements: each is compiled once.
  const statements = new Statements(db, MAX_CACHED_STATEMENTS);
  // One connection: statements issued inside transaction(fn) belong to it; statements from
  // other async work wait until it ends, so they never see (or join) a half-done commit.
  const inside = new TransactionContext<true>();
  const own = new KeyedMutex();
  let active: Promise<unknown> | undefined;
  const outside = async (): Promise<void> => {
    while (active && !inside.get()) await active.catch(() => undefined);
  };
  return {
    dialect: "sqlite",
    baseDir: dirname(resolve(path)),
    async all(sql, params = []) {
      await outside();
      return statements.get(sql).all(...params.map(toParam)) as CatalogRow[];
    },
    async run(sql, params = []) {
      await outside();
      if (params.length === 0 && !sql.includes("?")) db.exec(sql);
      else statements.get(sql).run(...params.map(toParam));
    },
    async transaction(fn) {
      if (inside.get()) return fn();
      return own.with(["tx"], () =>
        writers.with([resolve(path)], async () => {
          db.exec("BEGIN IMMEDIATE");
          const run = inside.run(true, fn);
          active = run;
          try {
            const out = await run;
            db.exec("COMMIT");
            return out;
          } catch (err) {
            if (db.inTransaction) db.exec("ROLLBACK");
            throw err;
          } finally {
            active = undefined;
          }
        }),
      );
    },
    async close() {
      db.close();
    },
  };
}
