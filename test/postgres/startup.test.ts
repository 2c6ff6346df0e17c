/**
 * Startup on Postgres: clear errors for an unreachable database, a schema written by a
 * newer Sluice and a bad URL; concurrent migrations apply each migration once; two
 * schemas share one database without seeing each other.
 */
import { afterAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../src/store/postgres/migrations/index.js";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/store.js";
import { freePort } from "../../bench/pg-cluster.js";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { sql, testDatabase, withDatabase } from "../helpers/postgres.js";

const stores: PostgresStore[] = [];
const open = (url: string) => {
  const s = openPostgresStore(url);
  stores.push(s);
  return s;
};
afterAll(async () => {
  for (const s of stores) await s.close();
});

const url = await testDatabase("startup");
const db = new URL(url).pathname.slice(1);

describe("Postgres startup", () => {
  it("names an unreachable database (without its password) and says what to check", async () => {
    const port = await freePort();
    const store = open(`postgres://sluice:s3cret@127.0.0.1:${port}/nowhere`);
    const err = await store.ready().catch((e) => e);
    expect(err).toMatchObject({ code: "DATABASE_UNREACHABLE" });
    expect(err.message).toMatch(
      new RegExp(
        `cannot reach Postgres at postgres://sluice:\\*\\*\\*@127\\.0\\.0\\.1:${port}/nowhere .*check that the server runs`,
      ),
    );
    expect(err.message).not.toMatch(/s3cret/);
    await expect(store.getRun("x")).rejects.toMatchObject({ code: "DATABASE_UNREACHABLE" });
  });

  it("exits the CLI with one clear line when the database is still unreachable after --startup-timeout", async () => {
    const port = await freePort();
    const root = makeProject({});
    const p = spawnSluice(
      ["worker", "--db", `postgres://sluice:s3cret@127.0.0.1:${port}/nowhere`, "--startup-timeout", "1s"],
      root,
    );
    expect(await p.exited).toBe(1);
    expect(p.stderr()).toMatch(/retrying in .*waiting for the database for up to --startup-timeout/);
    expect(p.output()).toMatch(
      /^sluice: cannot reach Postgres at postgres:\/\/sluice:\*\*\*@127\.0\.0\.1:\d+\/nowhere/m,
    );
    expect(p.output()).not.toMatch(/s3cret|\n\s+at /);
  });

  it("refuses a schema migrated by a newer Sluice", async () => {
    const u = withDatabase(url, db, { schema: "newer" });
    await open(u).ready();
    await sql(u, "INSERT INTO migrations (version) VALUES ($1)", [MIGRATIONS.length + 5]);
    const err = await open(u)
      .ready()
      .catch((e) => e);
    expect(err).toMatchObject({ code: "SCHEMA_TOO_NEW" });
    expect(err.message).toMatch(
      new RegExp(
        `schema version ${MIGRATIONS.length + 5}, newer than this Sluice understands \\(${MIGRATIONS.length}\\): upgrade Sluice`,
      ),
    );
  });

  it("refuses a malformed URL or schema name", () => {
    expect(() => openPostgresStore("postgres://x@127.0.0.1/db?schema=Bad-Name")).toThrow(
      expect.objectContaining({ code: "INVALID_DATABASE_URL" }),
    );
    expect(() => openPostgresStore("postgres://[bad")).toThrow(
      expect.objectContaining({ code: "INVALID_DATABASE_URL" }),
    );
  });

  it("applies each migration once when several processes start at the same time", async () => {
    const u = withDatabase(url, db, { schema: "racing" });
    await Promise.all(Array.from({ length: 6 }, () => open(u).ready()));
    const rows = await sql<{ version: number }>(u, "SELECT version FROM migrations ORDER BY version");
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  it("keeps two schemas of one database apart", async () => {
    const a = open(withDatabase(url, db, { schema: "team_a" }));
    const b = open(withDatabase(url, db, { schema: "team_b" }));
    await a.commit([
      {
        verb: "enqueue",
        request: {
          id: "only-in-a",
          dedupe: true,
          workflow: "wf",
          queue: "default",
          payload: "{}",
          maxAttempts: 1,
          backoff: { base: 1, max: 1 },
        },
      },
    ]);
    expect(await a.getRun("only-in-a")).not.toBeNull();
    expect(await b.getRun("only-in-a")).toBeNull();
    expect(await a.lead("scheduler", "x", 1000)).toBe(true);
    expect(await b.lead("scheduler", "y", 1000)).toBe(true);
  });
});
