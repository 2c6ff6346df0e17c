/**
 * Real message brokers for trigger tests: Mosquitto and nats-server (Debian packages) and the
 * Pub/Sub emulator (Google's Debian package, where installed), each
 * on a free loopback port with its state in a temporary folder, killed by pid after the file.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer, connect as tcpConnect } from "node:net";
import { join } from "node:path";
import { afterAll } from "vitest";
import { eventually, tempDir } from "./tmp.js";

/** A free TCP port on 127.0.0.1 (bound and released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = tcpConnect(port, "127.0.0.1");
    c.once("connect", () => (c.destroy(), resolve(true)));
    c.once("error", () => resolve(false));
  });
}

/** A broker started by a test. */
export interface Broker {
  readonly url: string;
  readonly port: number;
  readonly proc: ChildProcess;
  output(): string;
}

/**
 * Brokers this test file started, killed (with their process groups) after the file. The hook is
 * registered when this module is imported, at collection: an `afterAll` registered from inside a
 * running test (where brokers are often started) would never run, leaving the broker behind.
 */
const started = new Set<ChildProcess>();
function killStarted(): void {
  for (const proc of started) {
    try {
      process.kill(-proc.pid!, "SIGKILL");
    } catch {
      // the group is already gone
    }
  }
  started.clear();
}
afterAll(killStarted);
process.once("exit", killStarted);

async function start(bin: string, args: string[], port: number, scheme: string, timeoutMs = 10_000): Promise<Broker> {
  // Its own process group: the Pub/Sub emulator's launcher is a shell script that starts Java as
  // a child, which killing the launcher's pid alone would leave running.
  const proc = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (out += d));
  started.add(proc);
  await eventually(() => accepts(port), timeoutMs, 50).catch(() => {
    throw new Error(`${bin} did not listen on ${port}; output:\n${out}`);
  });
  return { url: `${scheme}://127.0.0.1:${port}`, port, proc, output: () => out };
}

/** Starts Mosquitto on a free loopback port (anonymous, sessions kept in memory). */
export async function startMosquitto(): Promise<Broker> {
  const dir = tempDir("sluice-mosquitto-");
  const port = await freePort();
  const conf = join(dir, "mosquitto.conf");
  writeFileSync(
    conf,
    `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 100000\n`,
  );
  return start("/usr/sbin/mosquitto", ["-c", conf], port, "mqtt");
}

/** Starts nats-server with JetStream on a free loopback port, its store in a temporary folder. */
export async function startNatsServer(): Promise<Broker> {
  const dir = tempDir("sluice-nats-");
  const port = await freePort();
  return start("/usr/sbin/nats-server", ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", dir], port, "nats");
}

/** The Pub/Sub emulator's launcher (Debian package `google-cloud-cli-pubsub-emulator`), when installed. */
export const PUBSUB_EMULATOR = "/usr/lib/google-cloud-sdk/platform/pubsub-emulator/bin/cloud-pubsub-emulator";

/** Starts the Pub/Sub emulator (Java, state in memory) on a free loopback port; `url` is its `host:port`. */
export async function startPubsubEmulator(): Promise<Broker> {
  const port = await freePort();
  const b = await start(PUBSUB_EMULATOR, [`--host=127.0.0.1`, `--port=${port}`], port, "http", 60_000);
  return { ...b, url: `127.0.0.1:${port}` };
}
