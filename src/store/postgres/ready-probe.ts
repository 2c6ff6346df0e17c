/**
 * The write check of the readiness probe on Postgres: a write that needs newly allocated space.
 *
 * Rewriting an existing row proves little on a full disk: the new row version fits in the free
 * space of the page it is on, so Postgres takes it and the probe stays ready while every enqueue
 * fails. `TRUNCATE` gives the probe table a new, empty file; the insert that follows must extend
 * it by a page, which fails with `53100 disk_full` when the database's tablespace has no room.
 * The lock `TRUNCATE` takes is on the probe table alone (probes of several servers take turns).
 */
import type { Db } from "./db.js";

/**
 * Commits one row into a freshly emptied `ready_probe` (a new file extended by one page).
 * @throws the driver's error (`53100` on a full disk, `55P03` when another probe holds the table past 2 s)
 */
export async function probeNewSpace(db: Db): Promise<void> {
  await db.tx(
    async (c) => {
      await c.query("TRUNCATE ready_probe");
      await c.query("INSERT INTO ready_probe (pid) VALUES ($1)", [process.pid]);
    },
    ["SET LOCAL lock_timeout = '2s'"],
  );
}
