/**
 * The lane supervisor while its database refuses writes (a failover to a read-only standby):
 * it says what failed once, worded as the worker words storage failures, not once a second
 * for as long as it lasts, and says when its checks work again. Real processes: a `sluice
 * server` on a test Postgres database made read-only and writable again.
 */
import { describe, expect, it } from "vitest";
import { postgresAdminUrl, sql, testDatabase } from "../helpers/postgres.js";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { LANE_WORKFLOWS } from "./fixtures.js";

describe("lane supervisor on a database that refuses writes", () => {
  it("reports the failure once with its code and what to do, then that it works again", async () => {
    const url = await testDatabase("lanes-readonly");
    const dbName = new URL(url).pathname.slice(1);
    const root = makeProject(LANE_WORKFLOWS);
    const server = spawnSluice(["server", "--port", "0"], root, { SLUICE_DATABASE_URL: url });
    try {
      await server.waitFor(/server \d+ ready/, 60_000);
      const admin = postgresAdminUrl();
      const cut = `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`;
      await sql(admin, `ALTER DATABASE ${JSON.stringify(dbName)} SET default_transaction_read_only = on`);
      await sql(admin, cut, [dbName]);
      await server.waitFor(
        /lanes: database error \(25006[^\n]*point Sluice at the writable primary; retrying\n/,
        30_000,
      );
      // The supervisor polls each second: five more polls fail the same way, and are not said again.
      await new Promise((r) => setTimeout(r, 5_000));
      const failures = server.output().match(/^lanes: database error \(25006/gm) ?? [];
      expect(failures, server.output()).toHaveLength(1);
      await sql(admin, `ALTER DATABASE ${JSON.stringify(dbName)} SET default_transaction_read_only = off`);
      await sql(admin, cut, [dbName]);
      await server.waitFor(/lanes: working again \(after: database error \(25006/, 30_000);
    } finally {
      server.proc.kill("SIGTERM");
      await server.exited;
    }
  }, 120_000);
});
