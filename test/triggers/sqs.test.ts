/**
 * SQS triggers against a real queue, only when `SLUICE_TEST_SQS_QUEUE_URL` names one (with the
 * AWS SDK's usual credentials and region; `SLUICE_TEST_SQS_ENDPOINT` for an SQS-compatible
 * server): none runs on the build machine, so without it these tests are skipped with that
 * reason. A SIGKILL between the enqueue and the delete leaves exactly one run per message once
 * the visibility timeout returns the message.
 */
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";
import { runsOf, startDev } from "./project.js";

const QUEUE = process.env.SLUICE_TEST_SQS_QUEUE_URL;
const ENDPOINT = process.env.SLUICE_TEST_SQS_ENDPOINT;
const SKIP = "skipped: set SLUICE_TEST_SQS_QUEUE_URL (and AWS credentials) to run them against a real SQS queue";

describe.skipIf(!QUEUE)(`SQS triggers${QUEUE ? "" : ` (${SKIP})`}`, () => {
  it("one run per message, also across a SIGKILL between enqueue and delete", async () => {
    const { SQSClient, SendMessageCommand } = await import("@aws-sdk/client-sqs");
    const client = new SQSClient({ ...(ENDPOINT && { endpoint: ENDPOINT }) });
    const root = makeProject({
      "sluice.json": JSON.stringify({
        triggers: [
          { name: "q", kind: "sqs", target: "orders", queueUrl: QUEUE, ...(ENDPOINT && { endpoint: ENDPOINT }) },
        ],
      }),
      "workflows/orders.ts": `import { defineWorkflow } from "tako.sh";
export default defineWorkflow<{ n: number }>("orders", { handler: async (p) => p.n });
`,
    });
    const first = await startDev(root, { SLUICE_TEST_CRASH_AT: "trigger-after-enqueue" });
    await first.waitFor(/trigger q: consuming \(sqs\)/, 30_000);
    await client.send(new SendMessageCommand({ QueueUrl: QUEUE, MessageBody: JSON.stringify({ n: 1 }) }));
    expect(await first.exited).toBe("SIGKILL");
    expect((await runsOf(root, "orders")).length).toBe(1);
    const second = await startDev(root);
    await client.send(new SendMessageCommand({ QueueUrl: QUEUE, MessageBody: JSON.stringify({ n: 2 }) }));
    // The first message comes back after the queue's visibility timeout (30 s by default).
    const runs = await eventually(async () => {
      const r = await runsOf(root, "orders");
      return r.length >= 2 ? r : null;
    }, 90_000);
    expect(runs.map((r) => r.payload.n).sort()).toEqual([1, 2]);
    second.proc.kill("SIGTERM");
    expect(await second.exited).toBe(0);
    client.destroy();
  }, 180_000);
});
