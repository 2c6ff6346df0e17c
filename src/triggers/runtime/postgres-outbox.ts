/**
 * The database side of a Postgres trigger: a row trigger on the watched table writes each
 * change into the outbox `sluice_triggers.changes` (in the writing transaction: a committed
 * change is never missed, even while no Sluice server runs) and wakes listeners with
 * `NOTIFY sluice_triggers`. Installed idempotently when the trigger starts; identifiers are
 * quoted by the driver, never interpolated raw.
 */
import type * as pg from "pg";
import type { PostgresOptions } from "../kinds.js";

/** The channel the capture function notifies. */
export const CHANNEL = "sluice_triggers";

/** Creates the outbox, the capture function and the table's row trigger (idempotent). */
export async function installCapture(c: pg.Client, triggerId: string, o: PostgresOptions): Promise<void> {
  const table = `${c.escapeIdentifier(o.schema)}.${c.escapeIdentifier(o.table)}`;
  const name = c.escapeIdentifier(`sluice_${triggerId}`.slice(0, 63));
  const events = o.events.map((e) => e.toUpperCase()).join(" OR ");
  await c.query("BEGIN");
  try {
    // One installer at a time (two servers starting together).
    await c.query("SELECT pg_advisory_xact_lock(hashtext('sluice_triggers.install'))");
    await c.query(`CREATE SCHEMA IF NOT EXISTS sluice_triggers`);
    await c.query(`CREATE TABLE IF NOT EXISTS sluice_triggers.changes (
      id bigserial PRIMARY KEY,
      trigger text NOT NULL,
      op text NOT NULL,
      tbl text NOT NULL,
      new_row jsonb,
      old_row jsonb,
      at timestamptz NOT NULL DEFAULT clock_timestamp())`);
    await c.query(`CREATE INDEX IF NOT EXISTS changes_trigger_id ON sluice_triggers.changes (trigger, id)`);
    await c.query(`CREATE OR REPLACE FUNCTION sluice_triggers.capture() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO sluice_triggers.changes (trigger, op, tbl, new_row, old_row)
        VALUES (TG_ARGV[0], lower(TG_OP), TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME,
                CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) END,
                CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) END);
        PERFORM pg_notify('${CHANNEL}', TG_ARGV[0]);
        RETURN NULL;
      END $$`);
    await c.query(`DROP TRIGGER IF EXISTS ${name} ON ${table}`);
    await c.query(
      `CREATE TRIGGER ${name} AFTER ${events} ON ${table} FOR EACH ROW EXECUTE FUNCTION sluice_triggers.capture(${c.escapeLiteral(triggerId)})`,
    );
    await c.query("COMMIT");
  } catch (err) {
    await c.query("ROLLBACK").catch(() => {});
    throw err;
  }
}

/** One captured change. */
export interface Change {
  readonly id: string;
  readonly op: string;
  readonly tbl: string;
  readonly new_row: unknown;
  readonly old_row: unknown;
  readonly at: string;
}

/** The oldest captured changes of a trigger. */
export async function pendingChanges(c: pg.Client, triggerId: string, limit: number): Promise<Change[]> {
  const { rows } = await c.query<Change>(
    `SELECT id::text AS id, op, tbl, new_row, old_row, (extract(epoch FROM at) * 1000000)::bigint::text AS at
       FROM sluice_triggers.changes WHERE trigger = $1 ORDER BY id LIMIT $2`,
    [triggerId, limit],
  );
  return rows;
}

/** Removes a change once its run is stored (the acknowledgement). */
export async function ackChange(c: pg.Client, id: string): Promise<void> {
  await c.query("DELETE FROM sluice_triggers.changes WHERE id = $1", [id]);
}

/** Where a trigger installed its capture (kept in its state, so a removed row can be undone). */
export interface InstalledCapture {
  readonly url?: string;
  readonly urlEnv?: string;
  readonly schema: string;
  readonly table: string;
}

/** The state key of a trigger's {@link InstalledCapture}. */
export const INSTALLED_KEY = "pg-installed";

/**
 * Undoes {@link installCapture} for a removed trigger: drops its row trigger (a table already
 * gone is fine) and its pending changes; when no table trigger uses the capture function any
 * more and the outbox is empty, drops the `sluice_triggers` schema (outbox and function) too.
 * Returns whether the schema was dropped.
 */
export async function uninstallCapture(c: pg.Client, triggerId: string, at: InstalledCapture): Promise<boolean> {
  const name = c.escapeIdentifier(`sluice_${triggerId}`.slice(0, 63));
  await c.query("BEGIN");
  try {
    await c.query("SELECT pg_advisory_xact_lock(hashtext('sluice_triggers.install'))");
    const table = await c.query("SELECT to_regclass($1) AS t", [
      `${c.escapeIdentifier(at.schema)}.${c.escapeIdentifier(at.table)}`,
    ]);
    if (table.rows[0]?.t !== null)
      await c.query(
        `DROP TRIGGER IF EXISTS ${name} ON ${c.escapeIdentifier(at.schema)}.${c.escapeIdentifier(at.table)}`,
      );
    const outbox = await c.query("SELECT to_regclass('sluice_triggers.changes') AS t");
    let dropped = false;
    if (outbox.rows[0]?.t !== null) {
      await c.query("DELETE FROM sluice_triggers.changes WHERE trigger = $1", [triggerId]);
      const { rows } = await c.query<{ users: number; changes: number }>(
        `SELECT (SELECT count(*)::int FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
                   JOIN pg_namespace n ON n.oid = p.pronamespace
                  WHERE n.nspname = 'sluice_triggers' AND p.proname = 'capture') AS users,
                (SELECT count(*)::int FROM sluice_triggers.changes) AS changes`,
      );
      if (rows[0]!.users === 0 && rows[0]!.changes === 0) {
        await c.query("DROP SCHEMA sluice_triggers CASCADE");
        dropped = true;
      }
    }
    await c.query("COMMIT");
    return dropped;
  } catch (err) {
    await c.query("ROLLBACK").catch(() => {});
    throw err;
  }
}
