import { describe, expect, it } from "vitest";
import { isTransientStorageFailure, StorageError, toStorageError } from "./storage-error.js";

const coded = (code: string, message = "x") => Object.assign(new Error(message), { code });

describe("isTransientStorageFailure", () => {
  it("passes SQLite lock, full disk, I/O and read-only failures (extended codes too)", () => {
    for (const code of [
      "SQLITE_BUSY",
      "SQLITE_BUSY_SNAPSHOT",
      "SQLITE_FULL",
      "SQLITE_IOERR_WRITE",
      "SQLITE_READONLY",
      "SQLITE_READONLY_DBMOVED",
      "SQLITE_CANTOPEN",
    ]) {
      expect(isTransientStorageFailure(coded(code))).toBe(true);
    }
  });
  it("passes Postgres connection, resource and shutdown failures, and dropped sockets", () => {
    for (const code of ["08006", "53100", "57P01", "40001", "40P01", "ECONNREFUSED"])
      expect(isTransientStorageFailure(coded(code))).toBe(true);
    expect(isTransientStorageFailure(new Error("Connection terminated unexpectedly"))).toBe(true);
  });
  it("refuses constraint violations, syntax errors, programming errors and non-errors", () => {
    for (const err of [
      coded("SQLITE_CONSTRAINT_UNIQUE"),
      coded("23505"),
      coded("42601"),
      new TypeError("The database connection is not open"),
      "boom",
      null,
    ]) {
      expect(isTransientStorageFailure(err)).toBe(false);
    }
  });
});

describe("StorageError", () => {
  it("names the driver's code and message, keeps the cause, and says whether a retry can pass", () => {
    const cause = coded("SQLITE_BUSY", "database is locked");
    const err = toStorageError(cause);
    expect(err).toBeInstanceOf(StorageError);
    expect(err.code).toBe("STORAGE_ERROR");
    expect(err.transient).toBe(true);
    expect(err.message).toBe(
      "database error (SQLITE_BUSY: database is locked): another process holds the database lock",
    );
    expect(toStorageError(coded("SQLITE_FULL", "database or disk is full")).message).toMatch(
      /: the disk is full: free some space$/,
    );
    // The SQLite readiness probe's own file on a full volume.
    const full = toStorageError(coded("ENOSPC", "ENOSPC: no space left on device, write"));
    expect(full.transient).toBe(true);
    expect(full.message).toMatch(/: the disk is full: free some space$/);
    expect(err.cause).toBe(cause);
    expect(toStorageError(err)).toBe(err);
    expect(new StorageError(new TypeError("nope")).message).toMatch(/not expected to pass on retry/);
  });
});
