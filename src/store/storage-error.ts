/**
 * Failures of the database itself (locked by another process past the busy timeout,
 * disk full, I/O error, file made read-only, connection lost), as opposed to a
 * fencing refusal (`{ ok: false, fenced: true }`: the lease is really gone).
 *
 * The rule "which driver failures pass once storage works again" lives here, once,
 * as a pure function of the error's code; the committer wraps what a store throws
 * in {@link StorageError} and callers holding a lease back off and retry.
 */
import { SluiceError } from "../sdk/errors.js";

/** SQLite result codes (better-sqlite3 `err.code`, extended codes start with these) that clear up on their own. */
const SQLITE_TRANSIENT = [
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "SQLITE_FULL",
  "SQLITE_IOERR",
  "SQLITE_READONLY",
  "SQLITE_CANTOPEN",
  "SQLITE_PROTOCOL",
  "SQLITE_NOMEM",
];
/** Node socket errors of a lost database connection. */
const NET_TRANSIENT = [
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
];
/** File-system errors of a store's own files (the SQLite readiness probe): a full disk clears up once space is freed. */
const FS_TRANSIENT = ["ENOSPC"];
/**
 * Postgres SQLSTATEs: 08 connection, 53 insufficient resources (disk full, out of
 * memory, too many connections), 57P01-03 shutdown/cannot connect now, 40001/40P01
 * serialization failure/deadlock, 55P03 lock not available, 25006 read-only transaction.
 */
const PG_TRANSIENT_CLASSES = ["08", "53"];
const PG_TRANSIENT = ["57P01", "57P02", "57P03", "40001", "40P01", "55P03", "25006"];

/** What to do about a failure, by its code. */
function hintFor(code: string): string | null {
  if (/^SQLITE_(BUSY|LOCKED)/.test(code) || code === "55P03") return "another process holds the database lock";
  if (/^SQLITE_FULL/.test(code) || code === "53100" || code === "ENOSPC") return "the disk is full: free some space";
  if (/^SQLITE_READONLY/.test(code)) return "the database is read-only: make the file and its folder writable";
  if (code === "25006")
    return "the database is read-only (a standby, or default_transaction_read_only): point Sluice at the writable primary";
  if (/^SQLITE_(IOERR|CANTOPEN)/.test(code))
    return "the database file cannot be read or written: check the disk and the file's permissions";
  if (NET_TRANSIENT.includes(code) || code.startsWith("08") || code.startsWith("57P"))
    return "the database server cannot be reached";
  return null;
}

/** True when `err` is a database failure that a later retry of the same write can get past. */
export function isTransientStorageFailure(err: unknown): boolean {
  if (err === null || typeof err !== "object") return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") {
    if (SQLITE_TRANSIENT.some((c) => code === c || code.startsWith(`${c}_`))) return true;
    if (NET_TRANSIENT.includes(code) || FS_TRANSIENT.includes(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && (PG_TRANSIENT.includes(code) || PG_TRANSIENT_CLASSES.includes(code.slice(0, 2))))
      return true;
  }
  const message = (err as { message?: unknown }).message;
  // node-postgres reports a dropped connection without a code.
  return (
    typeof message === "string" &&
    /Connection terminated|connection timeout|connection error|Client has encountered a connection error/i.test(message)
  );
}

/**
 * A write could not be committed because of the database, not because of the lease.
 * `transient` says whether retrying the same write later can succeed.
 */
export class StorageError extends SluiceError<"STORAGE_ERROR"> {
  readonly transient: boolean;

  constructor(cause: unknown) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    const code = (cause as { code?: unknown } | null)?.code;
    const transient = isTransientStorageFailure(cause);
    const hint = typeof code === "string" ? hintFor(code) : null;
    super(
      "STORAGE_ERROR",
      `database error (${typeof code === "string" ? `${code}: ` : ""}${detail})${hint ? `: ${hint}` : ""}${transient ? "" : "; this is not expected to pass on retry"}`,
      { cause },
    );
    this.transient = transient;
  }
}

/** True when `err` came from the database driver (an SQLite result code or a Postgres SQLSTATE), not from Sluice's own code. */
export function isDriverFailure(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return (
    isTransientStorageFailure(err) ||
    (typeof code === "string" && (code.startsWith("SQLITE_") || /^[0-9A-Z]{5}$/.test(code)))
  );
}

/** Wraps whatever a store threw as a {@link StorageError} (kept as is when it already is one). */
export function toStorageError(err: unknown): StorageError {
  return err instanceof StorageError ? err : new StorageError(err);
}

/**
 * An error for the operator's log: a database failure worded with its code and what to do
 * ({@link StorageError}'s message), anything else by its own message.
 */
export function describeFailure(err: unknown): string {
  return isDriverFailure(err) || (err as { code?: unknown } | null)?.code === "STORAGE_ERROR"
    ? toStorageError(err).message
    : ((err as Error)?.message ?? String(err));
}
