/**
 * Several servers on one Postgres database: each trigger is consumed by exactly one of them
 * (its store leadership), and when that server is SIGKILLed another takes the trigger over
 * (the persistent MQTT session, or the JetStream durable consumer, carries the messages
 * published meanwhile): every message becomes exactly one run. Against a real Mosquitto and a
 * real nats-server started here.
 */
import { connectAsync, type MqttClient } from "mqtt";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Broker, startMosquitto, startNatsServer } from "../helpers/brokers.js";
import { testDatabase } from "../helpers/postgres.js";
import { type SluiceProcess, spawnSluice } from "../helpers/processes.js";
import { delay, eventually } from "../helpers/tmp.js";
import { runsOf, triggerProject } from "./project.js";

/**
 * Two servers on one database consume `orders-<kind>`; the leader is SIGKILLed after 10 messages,
 * 10 more are published while nobody consumes, the standby takes over: 20 runs, one per message.
 */
async function takeover(
  kind: "mqtt" | "nats",
  row: Record<string, unknown>,
  stepRow: Record<string, unknown>,
  publish: (n: number) => Promise<unknown>,
): Promise<void> {
  const db = await testDatabase(`triggers_${kind}`);
  const root = triggerProject(kind, row, stepRow);
  const env = { SLUICE_DATABASE_URL: db, SLUICE_TRIGGER_TICK_MS: "200" };
  const start = () => spawnSluice(["server", "--port", "0", "--workers", "none"], root, env);
  const servers: SluiceProcess[] = [start(), start()];
  for (const s of servers) await s.waitFor(/server \d+ ready/, 30_000);
  const line = new RegExp(`trigger orders-${kind}: consuming`);
  const consuming = (s: SluiceProcess) => line.test(s.output());
  await eventually(() => servers.some(consuming), 15_000);
  await delay(1000);
  expect(servers.filter(consuming).length).toBe(1);
  const leader = servers.find(consuming)!;
  const standby = servers.find((s) => s !== leader)!;

  for (let n = 1; n <= 10; n++) await publish(n);
  await eventually(async () => (await runsOf(root, "orders", env)).length === 10, 20_000);
  leader.proc.kill("SIGKILL");
  await leader.exited;
  // Published while nobody consumes: kept at the broker for whoever takes over.
  for (let n = 11; n <= 20; n++) await publish(n);
  await standby.waitFor(line, 20_000);
  const runs = await eventually(async () => {
    const r = await runsOf(root, "orders", env);
    return r.length >= 20 ? r : null;
  }, 20_000);
  await delay(500);
  const final = await runsOf(root, "orders", env);
  expect(final.length).toBe(20);
  expect(runs.map((r) => r.payload.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  standby.proc.kill("SIGTERM");
  expect(await standby.exited).toBe(0);
}

describe("triggers on several servers (Postgres)", () => {
  let mosquitto: Broker;
  let nats: Broker;
  let pub: MqttClient;
  let nc: NatsConnection;
  beforeAll(async () => {
    [mosquitto, nats] = await Promise.all([startMosquitto(), startNatsServer()]);
    pub = await connectAsync(mosquitto.url, { clientId: "cluster-publisher" });
    nc = await connect({ servers: nats.url });
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: "CLUSTER", subjects: ["cluster.>"] });
    await jsm.streams.add({ name: "UNUSED", subjects: ["unused.>"] });
  }, 20_000);
  afterAll(async () => {
    await pub?.endAsync();
    await nc?.close();
  });

  it("MQTT: one server consumes each trigger; another takes it over when it dies; one run per message", async () => {
    await takeover("mqtt", { url: mosquitto.url, topic: "cluster/#" }, { url: mosquitto.url, topic: "unused/+" }, (n) =>
      pub.publishAsync("cluster/a", JSON.stringify({ n }), { qos: 1 }),
    );
  }, 120_000);

  it("NATS: one server consumes each trigger; another takes it over when it dies; one run per message", async () => {
    const js = nc.jetstream();
    await takeover(
      "nats",
      { url: nats.url, stream: "CLUSTER", ackWait: "2s" },
      { url: nats.url, stream: "UNUSED" },
      (n) => js.publish("cluster.a", JSON.stringify({ n })),
    );
  }, 120_000);
});
