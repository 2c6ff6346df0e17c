/**
 * Opening the SQLite file: WAL, `synchronous=FULL`, busy timeout, migrations; and,
 * for commands that only read, falling back to a read-only connection when the file
 * or its folder may not be written.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { SluiceError } from "../../sdk/errors.js";
import { untilNotBusy } from "./busy.js";
import { DatabaseOpenError, isNotWritable, ReadOnlySchemaError } from "./errors.js";
import { migrate, schemaVersion } from "./migrate.js";
import { MIGRATIONS } from "./migrations/index.js";
import { dropStat4 } from "./stat4.js";

/** An open connection and what to remove when it is closed (a read-only snapshot copy). */
export interface Connection {
  db: Database.Database;
  cleanup: (() => void) | null;
}

/**
 * Opens `options.path` for writing (creating its folder and migrating), or read-only
 * when `readOnlyFallback` is set and the file exists but may not be written.
 * @throws DatabaseOpenError, ReadOnlySchemaError, SchemaTooNew (SluiceError)
 */
export function openConnection(options: {
  path: string;
  busyTimeoutMs?: number;
  readOnlyFallback?: boolean;
}): Connection {
  const { path } = options;
  const busy = options.busyTimeoutMs ?? 10_000;
  let db: Database.Database | undefined;
  try {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    db = new Database(path);
    const conn = db;
    conn.pragma(`busy_timeout = ${busy}`);
    untilNotBusy(busy, () => {
      conn.pragma("journal_mode = WAL");
      conn.pragma("synchronous = FULL");
      migrate(conn, path);
      dropStat4(conn);
    });
    return { db, cleanup: null };
  } catch (err) {
    db?.close();
    if (err instanceof SluiceError) throw err;
    if (!options.readOnlyFallback || !isNotWritable(err) || path === ":memory:" || !existsSync(path))
      throw new DatabaseOpenError(path, err);
    return openReadOnly(path, busy);
  }
}

/**
 * Opens an existing file read-only. In WAL mode SQLite needs its `-shm` file beside the
 * database; when the folder is read-only too, a snapshot copy in a temporary folder is
 * read instead (removed on close).
 */
function openReadOnly(path: string, busy: number): Connection {
  const open = (file: string) => {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      db.pragma(`busy_timeout = ${busy}`);
      const version = schemaVersion(db);
      if (version !== MIGRATIONS.length) throw new ReadOnlySchemaError(path, version, MIGRATIONS.length);
      db.prepare("SELECT 1 FROM runs LIMIT 1").get();
      return db;
    } catch (err) {
      db.close();
      throw err;
    }
  };
  try {
    return { db: open(path), cleanup: null };
  } catch (err) {
    if (err instanceof SluiceError || !isNotWritable(err))
      throw err instanceof SluiceError ? err : new DatabaseOpenError(path, err);
  }
  const dir = mkdtempSync(join(tmpdir(), "sluice-readonly-"));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    const copy = join(dir, "sluice.db");
    copyFileSync(path, copy);
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
    return { db: open(copy), cleanup };
  } catch (err) {
    cleanup();
    throw err instanceof SluiceError ? err : new DatabaseOpenError(path, err);
  }
}
