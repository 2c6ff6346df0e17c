/**
 * Several servers on one Postgres database: each trigger is consumed by exactly one of them
 * (its store leadership), and when that server is SIGKILLed another takes the trigger over
 * (the persistent MQTT session carries the messages published meanwhile): every message
 * becomes exactly one run.
 */
import { connectAsync, type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Broker, startMosquitto } from "../helpers/brokers.js";
import { testDatabase } from "../helpers/postgres.js";
import { type SluiceProcess, spawnSluice } from "../helpers/processes.js";
import { delay, eventually } from "../helpers/tmp.js";
import { runsOf, triggerProject } from "./project.js";

describe("triggers on several servers (Postgres)", () => {
  let broker: Broker;
  let pub: MqttClient;
  beforeAll(async () => {
    broker = await startMosquitto();
    pub = await connectAsync(broker.url, { clientId: "cluster-publisher" });
  }, 20_000);
  afterAll(async () => {
    await pub?.endAsync();
  });

  it("one server consumes each trigger; another takes it over when it dies; one run per message", async () => {
    const db = await testDatabase("triggers");
    const root = triggerProject(
      "mqtt",
      { url: broker.url, topic: "cluster/#" },
      { url: broker.url, topic: "unused/+" },
    );
    const env = { SLUICE_DATABASE_URL: db, SLUICE_TRIGGER_TICK_MS: "200" };
    const start = () => spawnSluice(["server", "--port", "0", "--workers", "none"], root, env);
    const servers: SluiceProcess[] = [start(), start()];
    for (const s of servers) await s.waitFor(/server \d+ ready/, 30_000);
    const consuming = (s: SluiceProcess) => /trigger orders-mqtt: consuming/.test(s.output());
    await eventually(() => servers.some(consuming), 15_000);
    await delay(1000);
    expect(servers.filter(consuming).length).toBe(1);
    const leader = servers.find(consuming)!;
    const standby = servers.find((s) => s !== leader)!;

    for (let n = 1; n <= 10; n++) await pub.publishAsync("cluster/a", JSON.stringify({ n }), { qos: 1 });
    await eventually(async () => (await runsOf(root, "orders", env)).length === 10, 20_000);
    leader.proc.kill("SIGKILL");
    await leader.exited;
    // Published while nobody consumes: kept in the persistent session for whoever takes over.
    for (let n = 11; n <= 20; n++) await pub.publishAsync("cluster/a", JSON.stringify({ n }), { qos: 1 });
    await standby.waitFor(/trigger orders-mqtt: consuming/, 20_000);
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
  }, 120_000);
});
