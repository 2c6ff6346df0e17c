/**
 * The Kafka consumer (`kafkajs`): a member of the row's consumer group with auto-commit off.
 * Each message's offset is committed only after its run is enqueued; a crash in between makes
 * the group deliver it again from the last committed offset, and the run id (topic, partition,
 * offset) finds the run already made. Tested only against a broker named by
 * `SLUICE_TEST_KAFKA_BROKERS` (none runs on the build machine).
 */
import { TriggerError } from "../errors.js";
import type { KafkaOptions } from "../kinds.js";
import { type Consumer, type ConsumerContext, defaultClientName } from "./consumer.js";

/** Starts a Kafka consumer. @throws TriggerError `TRIGGER_CONSUMER_FAILED` */
export async function startKafka(cx: ConsumerContext): Promise<Consumer> {
  const o = cx.spec.options as KafkaOptions;
  const { Kafka, logLevel } = await import("kafkajs");
  const kafka = new Kafka({ clientId: "sluice", brokers: [...o.brokers], logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: o.groupId ?? defaultClientName(cx.spec.id) });
  let stopped = false;
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [...o.topics], fromBeginning: o.fromBeginning });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic, partition, message }) => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(message.headers ?? {})) if (v !== undefined) headers[k] = String(v);
        await cx.deliver({
          identity: `kafka:${topic}:${partition}:${message.offset}`,
          bytes: message.value ?? new Uint8Array(),
          topic,
          headers,
        });
        await consumer.commitOffsets([{ topic, partition, offset: String(BigInt(message.offset) + 1n) }]);
      },
    });
  } catch (err) {
    await consumer.disconnect().catch(() => {});
    throw new TriggerError(
      "TRIGGER_CONSUMER_FAILED",
      `Kafka ${o.brokers.join(",")}: ${(err as Error).message}; check the brokers and topics`,
      { cause: err },
    );
  }
  consumer.on(consumer.events.CRASH, (e) => {
    if (!stopped) cx.fail(e.payload.error);
  });
  return {
    async stop() {
      stopped = true;
      await consumer.disconnect().catch(() => {});
    },
  };
}
