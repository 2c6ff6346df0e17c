/**
 * Real `sluice worker` and `sluice server` processes against a Postgres cluster of this file's own
 * that the tests stop and start (the shared cluster is never stopped under other tests):
 * processes started before their database is up wait for it (`--startup-timeout`), while a
 * failure no wait can fix (wrong password, missing database) ends them at once.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Cluster, startCluster } from "../../bench/pg-cluster.js";
import { withDatabase } from "../helpers/postgres.js";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually, tempDir } from "../helpers/tmp.js";

let cluster: Cluster;
let db: string;

beforeAll(async () => {
  cluster = await startCluster({ fsync: "off", synchronous_commit: "off", full_page_writes: "off" });
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query("CREATE DATABASE down");
  await admin.end();
  db = withDatabase(cluster.url, "down");
});

afterAll(async () => {
  await cluster?.stop();
});

/** Ensures the cluster is up (a test that stopped it may have failed before starting it again). */
async function up(): Promise<void> {
  const probe = new pg.Client({ connectionString: cluster.url });
  const ok = await probe.connect().then(
    () => true,
    () => false,
  );
  await probe.end().catch(() => {});
  if (!ok) await cluster.start();
}

describe("start-up while Postgres is down", () => {
  it("a worker and a server started before Postgres wait for it, saying so, and start once it is up", async () => {
    await up();
    await cluster.down();
    const dir = tempDir();
    const worker = spawnSluice(["worker", "--db", db, "--startup-timeout", "60s"], dir);
    const server = spawnSluice(
      ["server", "--db", db, "--port", "0", "--workers", "none", "--startup-timeout", "60s"],
      dir,
    );
    await worker.waitFor(
      /sluice worker: opening the database failed \(cannot reach Postgres at .*ECONNREFUSED.*waiting for the database/,
    );
    await server.waitFor(
      /sluice server: opening the database failed \(cannot reach Postgres at .*ECONNREFUSED.*waiting for the database/,
    );
    // Started a few seconds later: both are still waiting, then both start.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(worker.proc.exitCode).toBeNull();
    expect(server.proc.exitCode).toBeNull();
    await cluster.start();
    await worker.waitFor(/worker \S+ ready/, 30_000);
    await server.waitFor(/server \d+ ready/, 30_000);
    expect(worker.output()).not.toContain("password");
    worker.proc.kill("SIGTERM");
    server.proc.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect(await server.exited).toBe(0);
  });

  it("a wrong password or a missing database fails at once with its cause", async () => {
    await up();
    const dir = tempDir();
    const wrong = new URL(db);
    wrong.password = "not-the-password";
    const missing = withDatabase(cluster.url, "no_such_database");
    const started = Date.now();
    const procs = [
      spawnSluice(["worker", "--db", wrong.toString(), "--startup-timeout", "60s"], dir),
      spawnSluice(["server", "--db", wrong.toString(), "--port", "0", "--startup-timeout", "60s"], dir),
      spawnSluice(["worker", "--db", missing, "--startup-timeout", "60s"], dir),
    ];
    const codes = await Promise.all(procs.map((p) => p.exited));
    expect(codes).toEqual([1, 1, 1]);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(procs[0]!.stderr()).toMatch(/password authentication failed/);
    expect(procs[1]!.stderr()).toMatch(/password authentication failed/);
    expect(procs[2]!.stderr()).toMatch(/database "no_such_database" does not exist/);
    for (const p of procs) expect(p.stderr()).not.toMatch(/retrying/);
  });
});

interface Ready {
  ready: boolean;
  checks: Record<string, { ok: boolean; detail: string }>;
}

async function ready(url: string): Promise<Ready> {
  return (await (await fetch(`${url}/api/ready`)).json()) as Ready;
}

describe("/api/ready while Postgres is down", () => {
  it("the leader's scheduler check fails as unknown (not standby), and passes again once Postgres is back", async () => {
    await up();
    const server = spawnSluice(
      ["server", "--db", db, "--port", "0", "--workers", "none", "--scheduler-tick", "200ms"],
      tempDir(),
    );
    await server.waitFor(/server \d+ ready/, 30_000);
    const url = /API and UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())![1]!;
    await eventually(async () => (await ready(url)).checks.scheduler!.detail === "leader", 15_000);
    await cluster.down();
    try {
      // Past the leadership lease (5 s) without an answer: unknown.
      const down = await eventually(async () => {
        const r = await ready(url);
        return !r.checks.scheduler!.ok ? r : null;
      }, 20_000);
      expect(down.ready).toBe(false);
      expect(down.checks.scheduler!.detail).toMatch(/^leadership unknown/);
      expect(down.checks.database!.ok).toBe(false);
      // Never reported as a healthy standby meanwhile.
      expect(server.output()).not.toMatch(/scheduler: standby/);
    } finally {
      await cluster.start();
    }
    const back = await eventually(async () => {
      const r = await ready(url);
      return r.ready ? r : null;
    }, 30_000);
    expect(back.checks.scheduler!.detail).toBe("leader");
    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  });
});

describe("--log-format json while Postgres goes down and comes back", () => {
  it("every line dev, worker and server print, on stdout and stderr, is a JSON object", async () => {
    await up();
    const root = makeProject({
      "workflows/hello.ts": `import { defineWorkflow } from "sluice";\nexport const hello = defineWorkflow("hello", { handler: async () => "hi" });\n`,
    });
    const json = ["--log-format", "json", "--db", db];
    const procs = {
      worker: spawnSluice(["worker", ...json], root),
      server: spawnSluice(["server", ...json, "--port", "0", "--scheduler-tick", "200ms"], root),
      dev: spawnSluice(["dev", root, ...json, "--port", "0"], root),
    };
    await procs.worker.waitFor(/worker \S+ ready/, 15_000);
    await procs.server.waitFor(/server \d+ ready/, 15_000);
    await procs.dev.waitFor(/Ctrl-C to stop/, 15_000);
    await cluster.down();
    try {
      await procs.worker.waitFor(/claim failed/, 8_000);
      await procs.server.waitFor(/sluice scheduler: /, 8_000);
    } finally {
      await cluster.start();
    }
    await new Promise((r) => setTimeout(r, 1_000));
    for (const p of Object.values(procs)) p.proc.kill("SIGTERM");
    for (const [name, p] of Object.entries(procs)) {
      expect(await p.exited, name).toBe(0);
      for (const stream of ["stdout", "stderr"] as const) {
        const lines = p[stream]()
          .split("\n")
          .filter((l) => l !== "");
        for (const line of lines) {
          const parsed = (() => {
            try {
              return JSON.parse(line) as Record<string, unknown>;
            } catch {
              return null;
            }
          })();
          expect(parsed, `${name} ${stream}: ${line}`).toMatchObject({
            ts: expect.any(String),
            level: expect.any(String),
            msg: expect.any(String),
          });
        }
      }
    }
    // The worker's database failure is a warning on stderr, as JSON.
    expect(procs.worker.stderr()).toMatch(/"level":"warn","msg":"sluice worker: claim failed/);
  });
});
