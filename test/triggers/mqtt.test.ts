/**
 * MQTT triggers against a real Mosquitto started here, consumed by a real `sluice dev`:
 * messages become runs (a workflow from `sluice.json`, a pipeline step from `pipeline.json`
 * with its dynamic partition read from the message), pause/resume, and a SIGKILL between the
 * enqueue and the PUBACK leaves exactly one run per message after the restart.
 */
import { connectAsync, type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Broker, startMosquitto } from "../helpers/brokers.js";
import { spawnSluice } from "../helpers/processes.js";
import { delay, eventually } from "../helpers/tmp.js";
import { cliJson, runsOf, startDev, triggerProject } from "./project.js";

describe("MQTT triggers (Mosquitto)", () => {
  let broker: Broker;
  let pub: MqttClient;
  beforeAll(async () => {
    broker = await startMosquitto();
    pub = await connectAsync(broker.url, { clientId: "test-publisher" });
  }, 20_000);
  afterAll(async () => {
    await pub?.endAsync();
  });

  it("turns each QoS 1 message into one run (workflow and pipeline step), lists the trigger, pauses and resumes", async () => {
    const root = triggerProject(
      "mqtt",
      { url: broker.url, topic: "orders/#" },
      { url: broker.url, topic: "tenants/+" },
    );
    const dev = await startDev(root);
    await dev.waitFor(/trigger orders-mqtt: consuming \(mqtt\)/);
    await dev.waitFor(/trigger f\/shop\/tenant:mqtt: consuming \(mqtt\)/);
    for (let n = 1; n <= 20; n++) await pub.publishAsync("orders/eu", JSON.stringify({ n }), { qos: 1 });
    await pub.publishAsync("tenants/acme", JSON.stringify({ tenant: "acme", amount: 7 }), { qos: 1 });

    const runs = await eventually(async () => {
      const r = await runsOf(root, "orders");
      return r.length >= 20 && r.every((x) => x.status === "succeeded") ? r : null;
    }, 30_000);
    expect(runs.map((r) => r.payload.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(runs.every((r) => /^trigger:orders-mqtt:[0-9a-f]{32}$/.test(r.id))).toBe(true);
    const step = await eventually(async () => {
      const r = await runsOf(root, "f/shop/tenant");
      return r[0]?.status === "succeeded" ? r[0] : null;
    }, 30_000);
    expect(step.result).toEqual({ partition: "acme", amount: 7 });

    const listed = await eventually(async () => {
      const l = await cliJson(root, ["triggers", "--json"]);
      const o = l.find((t: any) => t.id === "orders-mqtt");
      return o?.messages === 20 ? l : null;
    }, 10_000);
    const orders = listed.find((t: any) => t.id === "orders-mqtt");
    expect(orders).toMatchObject({
      kind: "mqtt",
      status: "running",
      paused: false,
      target: { type: "runnable", name: "orders" },
    });
    expect(JSON.parse(orders.lastMessage)).toMatchObject({
      trigger: "orders-mqtt",
      topic: "orders/eu",
      body: { n: expect.any(Number) },
    });
    expect(listed.find((t: any) => t.id === "f/shop/tenant:mqtt")).toMatchObject({ status: "running", messages: 1 });
    const human = spawnSluice(["triggers"], root);
    expect(await human.exited).toBe(0);
    expect(human.stdout()).toMatch(/orders-mqtt\s+mqtt\s+orders\s+running\s+20/);

    // Paused: messages wait at the broker (the session is persistent), then arrive on resume.
    expect(await cliJson(root, ["triggers", "pause", "orders-mqtt", "--json"])).toEqual({
      id: "orders-mqtt",
      paused: true,
      changed: true,
    });
    await dev.waitFor(/trigger orders-mqtt: paused/);
    for (let n = 21; n <= 23; n++) await pub.publishAsync("orders/eu", JSON.stringify({ n }), { qos: 1 });
    await delay(1500);
    expect((await runsOf(root, "orders")).length).toBe(20);
    expect((await cliJson(root, ["triggers", "--json"])).find((t: any) => t.id === "orders-mqtt").status).toBe(
      "paused",
    );
    const resume = spawnSluice(["triggers", "resume", "orders-mqtt"], root);
    expect(await resume.exited).toBe(0);
    expect(resume.stdout()).toBe("resumed orders-mqtt\n");
    await eventually(async () => (await runsOf(root, "orders")).length === 23, 20_000);

    const unknown = spawnSluice(["triggers", "pause", "nope"], root);
    expect(await unknown.exited).not.toBe(0);
    expect(unknown.stderr()).toMatch(/no trigger "nope" in this project; triggers: .*orders-mqtt/);
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 90_000);

  it("identical messages without idFrom are distinct messages: one run each", async () => {
    const root = triggerProject(
      "mqtt",
      { url: broker.url, topic: "same/#", clientId: "sluice-same-test" },
      { url: broker.url, topic: "unused2/+" },
    );
    const dev = await startDev(root);
    await dev.waitFor(/trigger orders-mqtt: consuming/);
    for (let i = 0; i < 3; i++) await pub.publishAsync("same/x", JSON.stringify({ n: 5 }), { qos: 1 });
    await pub.publishAsync("same/x", JSON.stringify({ n: 5 }), { qos: 0 });
    const runs = await eventually(async () => {
      const r = await runsOf(root, "orders");
      return r.length >= 4 ? r : null;
    }, 20_000);
    expect(runs.map((r) => r.payload)).toEqual([{ n: 5 }, { n: 5 }, { n: 5 }, { n: 5 }]);
    expect(new Set(runs.map((r) => r.id)).size).toBe(4);
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 60_000);

  it("a SIGKILL between enqueue and PUBACK: the broker redelivers, the enqueue deduplicates, one run per message", async () => {
    const root = triggerProject(
      "mqtt",
      { url: broker.url, topic: "crash/#", clientId: "sluice-crash-test" },
      { url: broker.url, topic: "unused/+" },
    );
    const first = await startDev(root, { SLUICE_TEST_CRASH_AT: "trigger-after-enqueue" });
    await first.waitFor(/trigger orders-mqtt: consuming/);
    await pub.publishAsync("crash/1", JSON.stringify({ n: 1 }), { qos: 1 });
    expect(await first.exited).toBe("SIGKILL");
    const before = await runsOf(root, "orders");
    expect(before.map((r) => r.payload)).toEqual([{ n: 1 }]);

    const second = await startDev(root);
    // The redelivered message is counted, and names the run the first process enqueued.
    const report = await eventually(async () => {
      const t = (await cliJson(root, ["triggers", "--json"])).find((x: any) => x.id === "orders-mqtt");
      return t?.messages >= 1 && t.status === "running" ? t : null;
    }, 30_000);
    expect(report.lastRunId).toBe(before[0]!.id);
    // The same bytes published again are another message: another run.
    await pub.publishAsync("crash/1", JSON.stringify({ n: 1 }), { qos: 1 });
    await pub.publishAsync("crash/2", JSON.stringify({ n: 2 }), { qos: 1 });
    const after = await eventually(async () => {
      const r = await runsOf(root, "orders");
      return r.length === 3 ? r : null;
    }, 20_000);
    expect(after.map((r) => r.payload.n).sort()).toEqual([1, 1, 2]);
    await delay(500);
    expect((await runsOf(root, "orders")).length).toBe(3);
    second.proc.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 90_000);
});
