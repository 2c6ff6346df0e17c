/**
 * Google Cloud Pub/Sub triggers against the Pub/Sub emulator started here (Google's Debian
 * package `google-cloud-cli-pubsub-emulator`, Java), consumed by a real `sluice dev`: messages
 * become runs (attributes as headers), the subscription is created on its topic when missing, and
 * a SIGKILL between the enqueue and the ack leaves exactly one run per message once the ack
 * deadline returns the message. Without the emulator the tests are skipped with that reason.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PUBSUB_EMULATOR, startPubsubEmulator } from "../helpers/brokers.js";
import { makeProject } from "../helpers/project.js";
import { delay, eventually } from "../helpers/tmp.js";
import { cliJson, runsOf, startDev } from "./project.js";

const HAVE = existsSync(PUBSUB_EMULATOR);
const SKIP = `skipped: the Pub/Sub emulator (${PUBSUB_EMULATOR}, package google-cloud-cli-pubsub-emulator) is not installed`;

describe.skipIf(!HAVE)(`Pub/Sub triggers (emulator)${HAVE ? "" : ` (${SKIP})`}`, () => {
  it("one run per message, the subscription made on its topic, and one run across a SIGKILL between enqueue and ack", async () => {
    const emulator = await startPubsubEmulator();
    // The emulator needs no credentials; no lookup of a metadata server either.
    const env = { PUBSUB_EMULATOR_HOST: emulator.url, METADATA_SERVER_DETECTION: "none" };
    process.env.METADATA_SERVER_DETECTION = "none";
    const { PubSub } = await import("@google-cloud/pubsub");
    const pubsub = new PubSub({ projectId: "sluice-test", apiEndpoint: emulator.url });
    const [topic] = await pubsub.createTopic("orders");
    const root = makeProject(
      {
        "sluice.json": JSON.stringify({
          triggers: [
            {
              name: "orders-gcp",
              kind: "gcp",
              target: "orders",
              projectId: "sluice-test",
              subscription: "sluice-orders",
              topic: "orders",
              ackDeadline: "10s",
              args: { n: "$.body.n", region: "$.headers.region" },
            },
          ],
        }),
        "workflows/orders.ts": `import { defineWorkflow } from "tako.sh";
export default defineWorkflow<{ n: number; region: string }>("orders", { handler: async (p) => p });
`,
      },
      "sluice-gcp-trigger-",
    );
    const first = await startDev(root, env);
    await first.waitFor(/trigger orders-gcp: consuming \(gcp\)/, 30_000);
    for (let n = 1; n <= 5; n++)
      await topic.publishMessage({ data: Buffer.from(JSON.stringify({ n })), attributes: { region: "eu" } });
    const runs = await eventually(async () => {
      const r = await runsOf(root, "orders");
      return r.length >= 5 && r.every((x) => x.status === "succeeded") ? r : null;
    }, 30_000);
    expect(runs.map((r) => r.payload).sort((a, b) => a.n - b.n)).toEqual(
      [1, 2, 3, 4, 5].map((n) => ({ n, region: "eu" })),
    );
    const listed = (await cliJson(root, ["triggers", "--json"], env)).find((t: any) => t.id === "orders-gcp");
    expect(listed).toMatchObject({
      kind: "gcp",
      status: "running",
      source: "pubsub projects/sluice-test/subscriptions/sluice-orders",
    });
    first.proc.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    const crashing = await startDev(root, { ...env, SLUICE_TEST_CRASH_AT: "trigger-after-enqueue" });
    await crashing.waitFor(/trigger orders-gcp: consuming \(gcp\)/, 30_000);
    await topic.publishMessage({ data: Buffer.from(JSON.stringify({ n: 6 })), attributes: { region: "us" } });
    expect(await crashing.exited).toBe("SIGKILL");
    expect((await runsOf(root, "orders")).length).toBe(6);

    const again = await startDev(root, env);
    // The unacked message comes back once its ack deadline has passed (10 s, or the deadline the
    // killed client had extended it to): counted, deduplicated. 40 s was too short under CI's load.
    await eventually(async () => {
      const t = (await cliJson(root, ["triggers", "--json"], env)).find((x: any) => x.id === "orders-gcp");
      return t?.messages >= 6 && t.lastMessage.includes('"n":6');
    }, 90_000);
    await topic.publishMessage({ data: Buffer.from(JSON.stringify({ n: 7 })), attributes: { region: "us" } });
    // The emulator (a JVM) can take well over 20 s to deliver under load: 60 s.
    await eventually(async () => (await runsOf(root, "orders")).length === 7, 60_000);
    await delay(500);
    expect((await runsOf(root, "orders")).map((r) => r.payload.n).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    again.proc.kill("SIGTERM");
    expect(await again.exited).toBe(0);
    await pubsub.close();
  }, 200_000);
});
