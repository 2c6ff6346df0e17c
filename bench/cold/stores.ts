/**
 * The stores the cold bench runs on: a fresh database per measurement (a new SQLite file,
 * or a new schema on one Postgres server), the store's raw limits, its targets, and how
 * big a database is.
 */
import { existsSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { type RawLimits, postgresLimits, sqliteLimits } from "./limits.js";
import { type ColdTargets, POSTGRES_TARGETS, SQLITE_TARGETS } from "./targets.js";

/** One store under benchmark. */
export interface ColdStore {
  name: "SQLite" | "Postgres";
  limits: RawLimits;
  targets: ColdTargets;
  /** A new, empty database setting (file or URL) labelled `label`. */
  fresh(label: string): string;
  /** Removes a database made by {@link fresh}. */
  drop(database: string): Promise<void>;
  /** Bytes the database takes on disk. */
  bytes(database: string): Promise<number>;
  /** Releases what the store holds open. */
  close(): Promise<void>;
}

/** SQLite files in `dir`. */
export function sqliteStore(dir: string): ColdStore {
  const files = (db: string) => [db, `${db}-wal`, `${db}-shm`];
  return {
    name: "SQLite",
    limits: sqliteLimits(dir),
    targets: SQLITE_TARGETS,
    fresh: (label) => join(dir, `cold-${label}.db`),
    drop: async (db) => files(db).forEach((f) => rmSync(f, { force: true })),
    bytes: async (db) => files(db).reduce((n, f) => n + (existsSync(f) ? statSync(f).size : 0), 0),
    close: async () => {},
  };
}

/** Schema of a database setting made by the Postgres {@link ColdStore}. */
export function schemaOf(database: string): string {
  return new URL(database).searchParams.get("schema")!;
}

/** Schemas on the Postgres server at `url` (fsync probe in `dir`). */
export async function postgresStore(url: string, dir: string): Promise<ColdStore> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const scratch = `cold_raw_${process.pid}`;
  await admin.query(`CREATE SCHEMA ${scratch}`);
  const limits = await postgresLimits(url, scratch, dir);
  await admin.query(`DROP SCHEMA ${scratch} CASCADE`);
  return {
    name: "Postgres",
    limits,
    targets: POSTGRES_TARGETS,
    fresh: (label) => {
      const u = new URL(url);
      u.searchParams.set("schema", `cold_${label.toLowerCase().replace(/[^a-z0-9]/g, "_")}_${process.pid}`);
      return u.toString();
    },
    drop: async (db) => void (await admin.query(`DROP SCHEMA IF EXISTS ${schemaOf(db)} CASCADE`)),
    bytes: async (db) => {
      const { rows } = await admin.query<{ n: string }>(
        `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS n FROM pg_class c
         JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ns.nspname = $1 AND c.relkind IN ('r', 'm')`,
        [schemaOf(db)],
      );
      return Number(rows[0]!.n);
    },
    close: () => admin.end(),
  };
}
