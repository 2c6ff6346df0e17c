/** Errors the Postgres store raises at startup, each saying what to do. */
import { SluiceError } from "../../sdk/errors.js";

/** The database URL or the schema name is malformed. */
export class InvalidDatabaseUrlError extends SluiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("INVALID_DATABASE_URL", message, options);
  }
}

/** Postgres could not be reached (wrong host or port, server down, bad credentials, missing database). */
export class DatabaseUnreachableError extends SluiceError {
  /** The server (URL without its password) and what the driver said, for short messages. */
  readonly target: string;
  readonly reason: string;

  constructor(target: string, reason: string, options?: { cause?: unknown }) {
    super(
      "DATABASE_UNREACHABLE",
      `cannot reach Postgres at ${target} (${reason}): check that the server runs and accepts connections, and the URL's host, port, user, password and database (--db or SLUICE_DATABASE_URL)`,
      options,
    );
    this.target = target;
    this.reason = reason;
  }
}

/** The schema was migrated by a newer Sluice than this one. */
export class SchemaTooNewError extends SluiceError {
  constructor(where: string, found: number, known: number) {
    super(
      "SCHEMA_TOO_NEW",
      `database ${where} has schema version ${found}, newer than this Sluice understands (${known}): upgrade Sluice on this machine, or point it at another database or schema`,
    );
  }
}
