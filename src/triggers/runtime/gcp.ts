/**
 * The Google Cloud Pub/Sub consumer (`@google-cloud/pubsub` 5, the last major that runs on
 * Node 20; credentials from Google's default chain, or none against the emulator named by
 * `PUBSUB_EMULATOR_HOST`): a streaming pull on one subscription, each message acked only after
 * its run is enqueued. A crash in between lets the ack deadline pass and Pub/Sub delivers the
 * message again with the same message id, which finds the run already made. A delivery that
 * fails is nacked (redelivered at once) and the consumer restarted.
 */
import type { Message, PubSub as PubSubType, Subscription } from "@google-cloud/pubsub";
import { TriggerError } from "../errors.js";
import type { GcpOptions } from "../kinds.js";
import type { Consumer, ConsumerContext } from "./consumer.js";

/** Starts a Pub/Sub consumer. @throws TriggerError `TRIGGER_CONSUMER_FAILED` (no such subscription, no credentials, …) */
export async function startGcp(cx: ConsumerContext): Promise<Consumer> {
  const o = cx.spec.options as GcpOptions;
  const { PubSub } = await import("@google-cloud/pubsub");
  const apiEndpoint = o.apiEndpoint ?? cx.env.PUBSUB_EMULATOR_HOST;
  const client: PubSubType = new PubSub({ projectId: o.projectId, ...(apiEndpoint && { apiEndpoint }) });
  // A local handle (no request): it stays valid when the subscription is created below.
  const sub: Subscription = client.subscription(o.subscription, {
    flowControl: { maxMessages: o.maxMessages, allowExcessMessages: false },
  });
  try {
    const [exists] = await sub.exists();
    if (!exists) {
      if (!o.topic)
        throw new Error(`the subscription does not exist; create it, or give "topic" to have it created on that topic`);
      await client.topic(o.topic).createSubscription(o.subscription, { ackDeadlineSeconds: o.ackDeadlineSeconds });
    }
  } catch (err) {
    await client.close().catch(() => {});
    throw new TriggerError(
      "TRIGGER_CONSUMER_FAILED",
      `Pub/Sub ${o.projectId}/${o.subscription}: ${(err as Error).message}; check the project, subscription and credentials`,
      { cause: err },
    );
  }
  let stopped = false;
  sub.on("message", (m: Message) => {
    cx.deliver({ identity: `gcp:${m.id}`, bytes: m.data, headers: { ...m.attributes } }).then(
      () => m.ack(),
      (err: unknown) => {
        m.nack();
        if (!stopped) cx.fail(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
  sub.on("error", (err: Error) => {
    if (!stopped) cx.fail(err);
  });
  return {
    async stop() {
      stopped = true;
      await sub.close().catch(() => {});
      await client.close().catch(() => {});
    },
  };
}
