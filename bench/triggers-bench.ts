/**
 * Native triggers (issue 19): messages/s from a broker into durable runs, and the latency from
 * publish to run start, on real brokers (Mosquitto, nats-server; Debian packages) started here
 * on loopback, consumed by the trigger runtime in this process into an engine on a SQLite file.
 * Each message is acknowledged to the broker only after its run is enqueued (one enqueue at a
 * time per trigger: MQTT's handleMessage and the JetStream consume loop are sequential).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, connect as tcpConnect } from "node:net";
import { join } from "node:path";
import { createEngine, defineWorkflow, type Engine } from "../dist/index.js";
import { TriggerSupervisor } from "../dist/triggers/runtime/supervisor.js";
import { engineEnqueue } from "../dist/triggers/runtime/targets.js";
import { parseConfigTriggers } from "../dist/triggers/spec.js";
import { type Figure, quantile } from "./report.js";

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function listening(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = tcpConnect(port, "127.0.0.1");
      c.once("connect", () => (c.destroy(), resolve(true)));
      c.once("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on ${port}`);
}

async function broker(bin: string, args: string[], port: number): Promise<ChildProcess> {
  const p = spawn(bin, args, { stdio: "ignore" });
  await listening(port);
  return p;
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Bench {
  engine: Engine;
  supervisor: TriggerSupervisor;
  /** publish → handler start, ms, of messages carrying `t`. */
  latencies: number[];
}

async function open(dir: string, name: string, row: Record<string, unknown>): Promise<Bench> {
  const latencies: number[] = [];
  const sink = defineWorkflow<{ n: number; t?: number }>("trigger-sink", {
    handler: async (p) => {
      if (p.t !== undefined) latencies.push(performance.timeOrigin + performance.now() - p.t);
      return p.n;
    },
  });
  const engine = createEngine({
    database: join(dir, `${name}.db`),
    workflows: [sink],
    scheduler: false,
    captureConsole: false,
  });
  await engine.start();
  const supervisor = new TriggerSupervisor({
    store: engine.store,
    enqueue: engineEnqueue(engine, null),
    tickMs: 100,
  });
  await supervisor.sync(parseConfigTriggers([{ name, target: "trigger-sink", ...row }]));
  for (let i = 0; i < 100 && [...supervisor.triggers.values()][0]?.current !== "running"; i++) await wait(50);
  return { engine, supervisor, latencies };
}

async function measure(
  b: Bench,
  label: string,
  publish: (body: string) => Promise<unknown>,
  count: number,
): Promise<Figure[]> {
  const t0 = performance.now();
  for (let i = 0; i < count; i += 200)
    await Promise.all(
      Array.from({ length: Math.min(200, count - i) }, (_, k) => publish(JSON.stringify({ n: i + k }))),
    );
  const published = performance.now() - t0;
  while ((await b.engine.store.countRuns({ workflow: "trigger-sink" })) < count) await wait(20);
  const s = (performance.now() - t0) / 1000;
  // Latency: one message at a time, 20 ms apart, while nothing else is queued.
  for (let i = 0; i < 200; i++) {
    await publish(JSON.stringify({ n: count + i, t: performance.timeOrigin + performance.now() }));
    await wait(20);
  }
  while (b.latencies.length < 200) await wait(20);
  const lat = [...b.latencies].sort((x, y) => x - y);
  return [
    {
      name: `${label}: ${count} messages published → ${count} durable runs`,
      value: count / s,
      unit: "messages/s",
      note: `publishing took ${(published / 1000).toFixed(2)} s of ${s.toFixed(2)} s`,
    },
    { name: `${label}: publish → run start, p50 (200 messages, 20 ms apart)`, value: quantile(lat, 0.5), unit: "ms" },
    { name: `${label}: publish → run start, p99`, value: quantile(lat, 0.99), unit: "ms" },
  ];
}

/** MQTT and NATS JetStream figures. */
export async function triggerFigures(dir: string, count = 5_000): Promise<Figure[]> {
  const out: Figure[] = [];
  const mqttPort = await freePort();
  const conf = join(dir, "mosquitto.conf");
  writeFileSync(
    conf,
    `listener ${mqttPort} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 0\nmax_inflight_messages 0\n`,
  );
  const mosquitto = await broker("/usr/sbin/mosquitto", ["-c", conf], mqttPort);
  try {
    const url = `mqtt://127.0.0.1:${mqttPort}`;
    const b = await open(dir, "bench-mqtt", { kind: "mqtt", url, topic: "bench/#" });
    const { connectAsync } = await import("mqtt");
    const pub = await connectAsync(url, { clientId: "bench-publisher" });
    out.push(
      ...(await measure(b, "MQTT QoS 1 (Mosquitto)", (body) => pub.publishAsync("bench/a", body, { qos: 1 }), count)),
    );
    await pub.endAsync();
    await b.supervisor.stop();
    await b.engine.stop({ drainMs: 1000 });
  } finally {
    mosquitto.kill("SIGKILL");
  }
  const natsPort = await freePort();
  const store = join(dir, "nats");
  mkdirSync(store, { recursive: true });
  const natsServer = await broker(
    "/usr/sbin/nats-server",
    ["-a", "127.0.0.1", "-p", String(natsPort), "-js", "-sd", store],
    natsPort,
  );
  try {
    const url = `nats://127.0.0.1:${natsPort}`;
    const { connect } = await import("nats");
    const nc = await connect({ servers: url });
    await (await nc.jetstreamManager()).streams.add({ name: "BENCH", subjects: ["bench.>"] });
    const js = nc.jetstream();
    const b = await open(dir, "bench-nats", { kind: "nats", url, stream: "BENCH" });
    out.push(...(await measure(b, "NATS JetStream (nats-server)", (body) => js.publish("bench.a", body), count)));
    await nc.close();
    await b.supervisor.stop();
    await b.engine.stop({ drainMs: 1000 });
  } finally {
    natsServer.kill("SIGKILL");
  }
  return out;
}
