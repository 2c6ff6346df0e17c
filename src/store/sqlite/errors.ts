/** Errors the SQLite store raises when opening its file, each saying what to do. */
import { SluiceError } from "../../sdk/errors.js";

/** SQLite codes (and Node file-system codes) of a file or folder this process may not write. */
const NOT_WRITABLE = /^(SQLITE_READONLY|SQLITE_CANTOPEN|SQLITE_PERM|SQLITE_AUTH|EACCES|EPERM|EROFS)/;

/** True when opening failed because the database file or its folder is not writable. */
export function isNotWritable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && NOT_WRITABLE.test(code);
}

/** The SQLite file could not be opened for writing (read-only file or folder, missing permissions, bad path). */
export class DatabaseOpenError extends SluiceError<"DATABASE_NOT_WRITABLE" | "DATABASE_OPEN_FAILED"> {
  constructor(path: string, cause: unknown) {
    const code = (cause as { code?: unknown } | null)?.code;
    const reason = `${typeof code === "string" ? `${code}: ` : ""}${cause instanceof Error ? cause.message : String(cause)}`;
    const notWritable = isNotWritable(cause);
    super(
      notWritable ? "DATABASE_NOT_WRITABLE" : "DATABASE_OPEN_FAILED",
      notWritable
        ? `cannot open the database ${path} for writing (${reason}): make the file and its folder writable by this user (SQLite also creates ${path}-wal and -shm beside it), or point --db at a writable copy`
        : `cannot open the database ${path} (${reason}): check the path (--db, SLUICE_DATABASE_URL or sluice.json "database") and that it is a Sluice SQLite file`,
      { cause },
    );
  }
}

/** A read-only database file was written by an older Sluice: it must be migrated, which needs write access. */
export class ReadOnlySchemaError extends SluiceError<"DATABASE_NOT_WRITABLE"> {
  constructor(path: string, found: number, known: number) {
    super(
      "DATABASE_NOT_WRITABLE",
      `the database ${path} is read-only and has schema version ${found}, older than this Sluice's ${known}: make it writable once so Sluice can migrate it`,
    );
  }
}
