/**
 * Kafka triggers against a real broker, only when `SLUICE_TEST_KAFKA_BROKERS` names one
 * (`host:port[,host:port]`): no Kafka runs on the build machine, so without it these tests are
 * skipped with that reason. Messages become runs; a SIGKILL between the enqueue and the offset
 * commit leaves exactly one run per message after the restart.
 */
import { describe, expect, it } from "vitest";
import { eventually } from "../helpers/tmp.js";
import { runsOf, startDev } from "./project.js";
import { makeProject } from "../helpers/project.js";

const BROKERS = process.env.SLUICE_TEST_KAFKA_BROKERS;
const SKIP = "skipped: set SLUICE_TEST_KAFKA_BROKERS=host:port to run them against a real Kafka";

describe.skipIf(!BROKERS)(`Kafka triggers${BROKERS ? "" : ` (${SKIP})`}`, () => {
  it("one run per message, also across a SIGKILL between enqueue and offset commit", async () => {
    const { Kafka } = await import("kafkajs");
    const topic = `sluice-test-${Date.now()}`;
    const kafka = new Kafka({ clientId: "sluice-test", brokers: BROKERS!.split(",") });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    const root = makeProject({
      "sluice.json": JSON.stringify({
        triggers: [
          { name: "k", kind: "kafka", target: "orders", brokers: BROKERS!.split(","), topic, fromBeginning: true },
        ],
      }),
      "workflows/orders.ts": `import { defineWorkflow } from "tako.sh";
export default defineWorkflow<{ n: number }>("orders", { handler: async (p) => p.n });
`,
    });
    const first = await startDev(root, { SLUICE_TEST_CRASH_AT: "trigger-after-enqueue" });
    await first.waitFor(/trigger k: consuming \(kafka\)/, 30_000);
    await producer.send({ topic, messages: [{ value: JSON.stringify({ n: 1 }) }] });
    expect(await first.exited).toBe("SIGKILL");
    expect((await runsOf(root, "orders")).length).toBe(1);
    const second = await startDev(root);
    await producer.send({ topic, messages: [{ value: JSON.stringify({ n: 2 }) }] });
    const runs = await eventually(async () => {
      const r = await runsOf(root, "orders");
      return r.length >= 2 ? r : null;
    }, 60_000);
    expect(runs.map((r) => r.payload.n).sort()).toEqual([1, 2]);
    await producer.disconnect();
    second.proc.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  }, 120_000);
});
