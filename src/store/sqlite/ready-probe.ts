/**
 * The write check of the readiness probe on SQLite: a committed write, and proof that the
 * database's volume can still grow.
 *
 * A write to SQLite in WAL mode can succeed on a full disk: once checkpointed, the WAL file is
 * written again from its start, so nothing new is allocated until the WAL or the database file
 * must grow, and then every write fails. The probe commits one key, then writes one database
 * page to a file beside the database, syncs it and removes it: on a full volume that fails
 * with `ENOSPC` (reported as "the disk is full").
 */
import { closeSync, fsyncSync, openSync, rmSync, writeSync } from "node:fs";
import * as kv from "./kv.js";
import type { Statements } from "./statements.js";

/** The key the probe rewrites. */
const PROBE_KEY = "sluice:ready-probe";

/**
 * Writes the probe key; call inside a write transaction, then {@link probeNewSpace} after its commit.
 * @throws the driver's error
 */
export function writeProbeKey(s: Statements): void {
  kv.kvPut(s, PROBE_KEY, `${process.pid}:${Date.now()}`);
}

/**
 * Allocates `pageSize` bytes on the database's volume (nothing for an in-memory database, `file` null).
 * @throws the file system's error (`ENOSPC` on a full disk)
 */
export function probeNewSpace(file: string | null, pageSize: number): void {
  if (file === null) return;
  const probe = `${file}-ready-probe`;
  const fd = openSync(probe, "w");
  try {
    writeSync(fd, Buffer.alloc(pageSize, 0x5a));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
    rmSync(probe, { force: true });
  }
}
