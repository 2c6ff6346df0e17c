/**
 * The SQS consumer (`@aws-sdk/client-sqs`, credentials from the SDK's default chain): long-polls
 * the queue and deletes each message only after its run is enqueued. A crash in between lets
 * the message's visibility timeout expire; SQS delivers it again with the same MessageId, which
 * finds the run already made. Tested only against a queue named by `SLUICE_TEST_SQS_QUEUE_URL`.
 */
import { TriggerError } from "../errors.js";
import type { SqsOptions } from "../kinds.js";
import type { Consumer, ConsumerContext } from "./consumer.js";

function regionOf(o: SqsOptions, env: Record<string, string | undefined>): string | undefined {
  return o.region ?? /^sqs\.([a-z0-9-]+)\.amazonaws\.com$/.exec(new URL(o.queueUrl).host)?.[1] ?? env.AWS_REGION;
}

/** Starts an SQS consumer. @throws TriggerError `TRIGGER_CONSUMER_FAILED` */
export async function startSqs(cx: ConsumerContext): Promise<Consumer> {
  const o = cx.spec.options as SqsOptions;
  const { SQSClient, ReceiveMessageCommand, DeleteMessageCommand, GetQueueAttributesCommand } =
    await import("@aws-sdk/client-sqs");
  const region = regionOf(o, cx.env);
  const client = new SQSClient({ ...(region && { region }), ...(o.endpoint && { endpoint: o.endpoint }) });
  try {
    await client.send(new GetQueueAttributesCommand({ QueueUrl: o.queueUrl, AttributeNames: ["QueueArn"] }));
  } catch (err) {
    client.destroy();
    throw new TriggerError(
      "TRIGGER_CONSUMER_FAILED",
      `SQS ${o.queueUrl}: ${(err as Error).message}; check the queue URL, region and credentials`,
      { cause: err },
    );
  }
  const abort = new AbortController();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const { Messages = [] } = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: o.queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 20,
          MessageAttributeNames: ["All"],
        }),
        { abortSignal: abort.signal },
      );
      for (const m of Messages) {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(m.MessageAttributes ?? {}))
          if (v.StringValue !== undefined) headers[k] = v.StringValue;
        await cx.deliver({ identity: `sqs:${m.MessageId}`, bytes: Buffer.from(m.Body ?? "", "utf8"), headers });
        await client.send(new DeleteMessageCommand({ QueueUrl: o.queueUrl, ReceiptHandle: m.ReceiptHandle }));
      }
    }
  })();
  loop.catch((err: unknown) => {
    if (!stopped) cx.fail(err instanceof Error ? err : new Error(String(err)));
  });
  return {
    async stop() {
      stopped = true;
      abort.abort();
      await loop.catch(() => {});
      client.destroy();
    },
  };
}
