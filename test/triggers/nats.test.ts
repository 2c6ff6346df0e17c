/**
 * NATS JetStream triggers against a real nats-server started here, consumed by a real
 * `sluice dev` through a durable consumer: messages become runs (workflow and pipeline step),
 * and a SIGKILL between the enqueue and the ack leaves exactly one run per message after the
 * restart (the server redelivers after ackWait, the run id is the stream sequence's).
 */
import { connect, type JetStreamClient, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Broker, startNatsServer } from "../helpers/brokers.js";
import { delay, eventually } from "../helpers/tmp.js";
import { cliJson, runsOf, startDev, triggerProject } from "./project.js";

describe("NATS JetStream triggers (nats-server)", () => {
  let broker: Broker;
  let nc: NatsConnection;
  let js: JetStreamClient;
  beforeAll(async () => {
    broker = await startNatsServer();
    nc = await connect({ servers: broker.url });
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: "ORDERS", subjects: ["orders.>"] });
    await jsm.streams.add({ name: "TENANTS", subjects: ["tenants.>"] });
    await jsm.streams.add({ name: "CRASH", subjects: ["crash.>"] });
    await jsm.streams.add({ name: "UNUSED", subjects: ["unused.>"] });
    js = nc.jetstream();
  }, 20_000);
  afterAll(async () => {
    await nc?.close();
  });

  it("turns each stream message into one run (workflow and pipeline step) and acks it", async () => {
    const root = triggerProject(
      "nats",
      { url: broker.url, stream: "ORDERS", ackWait: "5s" },
      { url: broker.url, stream: "TENANTS", subject: "tenants.>" },
    );
    const dev = await startDev(root);
    await dev.waitFor(/trigger orders-nats: consuming \(nats\)/);
    await dev.waitFor(/trigger f\/shop\/tenant:nats: consuming \(nats\)/);
    for (let n = 1; n <= 20; n++) await js.publish("orders.eu", JSON.stringify({ n }));
    await js.publish("tenants.acme", JSON.stringify({ tenant: "acme", amount: 3 }));
    const runs = await eventually(async () => {
      const r = await runsOf(root, "orders");
      return r.length >= 20 && r.every((x) => x.status === "succeeded") ? r : null;
    }, 30_000);
    expect(runs.map((r) => r.payload.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const step = await eventually(async () => {
      const r = await runsOf(root, "f/shop/tenant");
      return r[0]?.status === "succeeded" ? r[0] : null;
    }, 30_000);
    expect(step.result).toEqual({ partition: "acme", amount: 3 });
    // Every message acked: nothing pending or waiting for an ack on the durable consumer.
    const info = await eventually(async () => {
      const i = await (await nc.jetstreamManager()).consumers.info("ORDERS", "sluice-orders-nats");
      return i.num_ack_pending === 0 && i.num_pending === 0 ? i : null;
    }, 10_000);
    expect(info.delivered.stream_seq).toBe(20);
    const listed = await cliJson(root, ["triggers", "--json"]);
    expect(listed.find((t: any) => t.id === "orders-nats")).toMatchObject({ status: "running", messages: 20 });
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 90_000);

  it("a SIGKILL between enqueue and ack: redelivered after ackWait, deduplicated, one run per message", async () => {
    const root = triggerProject(
      "nats",
      { url: broker.url, stream: "CRASH", ackWait: "2s" },
      { url: broker.url, stream: "UNUSED" },
    );
    const first = await startDev(root, { SLUICE_TEST_CRASH_AT: "trigger-after-enqueue" });
    await first.waitFor(/trigger orders-nats: consuming/);
    await js.publish("crash.1", JSON.stringify({ n: 1 }));
    expect(await first.exited).toBe("SIGKILL");
    const before = await runsOf(root, "orders");
    expect(before.map((r) => r.payload)).toEqual([{ n: 1 }]);

    const second = await startDev(root);
    const report = await eventually(async () => {
      const t = (await cliJson(root, ["triggers", "--json"])).find((x: any) => x.id === "orders-nats");
      // At-least-once: the server may redeliver more than once; each delivery names the same run.
      return t?.messages >= 1 && t.status === "running" ? t : null;
    }, 30_000);
    expect(report.lastRunId).toBe(before[0]!.id);
    await js.publish("crash.2", JSON.stringify({ n: 2 }));
    const after = await eventually(async () => {
      const r = await runsOf(root, "orders");
      return r.length === 2 ? r : null;
    }, 20_000);
    expect(after.map((r) => r.payload.n).sort()).toEqual([1, 2]);
    const info = await eventually(async () => {
      const i = await (await nc.jetstreamManager()).consumers.info("CRASH", "sluice-orders-nats");
      return i.num_ack_pending === 0 ? i : null;
    }, 10_000);
    // More deliveries than messages: the first one was delivered again after the crash.
    expect(info.delivered.stream_seq).toBe(2);
    expect(info.delivered.consumer_seq).toBeGreaterThan(2);
    await delay(500);
    expect((await runsOf(root, "orders")).length).toBe(2);
    second.proc.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 90_000);
});
