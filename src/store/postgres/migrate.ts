/**
 * Brings a schema up to date. Every process runs this at startup; an advisory
 * transaction lock keyed by the schema name makes concurrent starts apply each
 * migration exactly once (the others wait, then find nothing to do).
 */
import type * as pg from "pg";
import { pgDriver } from "./driver.js";
import { clientConfig } from "./db.js";
import type { PostgresTarget } from "./config.js";
import { SchemaTooNewError } from "./errors.js";
import { MIGRATIONS } from "./migrations/index.js";

/** First key of Sluice's advisory locks ("sluice" in a 31-bit int), the second is per purpose. */
export const LOCK_CLASS = 0x51c3e;

/** Quotes a schema name already validated by `parsePostgresTarget` (identifiers cannot be parameters). */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Applies pending migrations in one transaction.
 * @throws SchemaTooNewError when the schema was written by a newer Sluice
 */
export async function migrate(target: PostgresTarget): Promise<void> {
  // A dedicated connection without search_path: the schema may not exist yet.
  const client = new (pgDriver().Client)({ ...clientConfig(target), options: undefined } as pg.ClientConfig);
  client.on("error", () => {});
  await client.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [LOCK_CLASS, `migrate:${target.schema}`]);
    const s = ident(target.schema);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(`SET LOCAL search_path = ${s}`);
    await client.query(
      "CREATE TABLE IF NOT EXISTS migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const { rows } = await client.query<{ v: number | null }>("SELECT max(version) AS v FROM migrations");
    const current = rows[0]?.v ?? 0;
    if (current > MIGRATIONS.length)
      throw new SchemaTooNewError(`${target.display} (schema ${target.schema})`, current, MIGRATIONS.length);
    for (let v = current + 1; v <= MIGRATIONS.length; v++) {
      await client.query(MIGRATIONS[v - 1]!);
      await client.query("INSERT INTO migrations (version) VALUES ($1)", [v]);
    }
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    await client.end().catch(() => {});
  }
}
