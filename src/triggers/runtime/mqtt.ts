/**
 * The MQTT consumer (`mqtt` client): a persistent session (`clean: false`, a fixed client id)
 * subscribed with QoS 1. The client's `handleMessage` runs before it sends the PUBACK, so the
 * PUBACK goes out only after the run is enqueued; a process that dies in between leaves the
 * message in flight in the broker's session, which redelivers it when the session reconnects
 * (on this server or the one that takes the trigger over).
 *
 * A message's identity (unless the row's `idFrom` names one) is its number in the trigger's
 * receive sequence, recorded by packet identifier before the enqueue so that the broker's resend
 * finds the same number (`mqtt-identity.ts`): two identical messages are two runs, one message
 * delivered twice is one.
 */
import { createHash, randomUUID } from "node:crypto";
import type { MqttClient, IClientOptions, IPublishPacket } from "mqtt";
import { TriggerError } from "../errors.js";
import type { KindOptions } from "../kinds.js";
import { decodeInFlight, decodeSeq, mqttIdentity, numberMessage, SEQ_BLOCK } from "../mqtt-identity.js";
import type { RawMessage } from "../message.js";
import { type Consumer, type ConsumerContext, defaultClientName, type TriggerKv } from "./consumer.js";

/** The trigger's receive sequence, reserved from its state a block at a time. */
async function receiveSequence(kv: TriggerKv) {
  const stored = decodeSeq(await kv.get("seq"));
  const epoch = stored?.epoch ?? randomUUID().slice(0, 8);
  let next = stored?.next ?? 0;
  let limit = next;
  return {
    epoch,
    /** Makes sure the next number is reserved (durably) before it is used. */
    async ready(): Promise<void> {
      if (next < limit) return;
      limit = next + SEQ_BLOCK;
      await kv.put("seq", JSON.stringify({ epoch, next: limit }));
    },
    take: () => next++,
  };
}

/** The message to deliver: numbered and recorded unless the row's `idFrom` names the identity. */
async function identify(
  cx: ConsumerContext,
  seq: Awaited<ReturnType<typeof receiveSequence>>,
  session: string,
  packet: IPublishPacket,
): Promise<RawMessage> {
  const raw = { bytes: packet.payload as Buffer, topic: packet.topic };
  if (cx.spec.mapping.idFrom) return raw;
  const digest = createHash("sha256").update(packet.topic).update("\0").update(raw.bytes).digest("hex").slice(0, 32);
  const packetId = packet.qos > 0 ? packet.messageId : undefined;
  // Packet identifiers belong to one broker session (client id): another session's records never match.
  const key = `pid-${session}-${packetId}`;
  const stored = packetId !== undefined && packet.dup ? decodeInFlight(await cx.kv.get(key)) : null;
  await seq.ready();
  const n = numberMessage({ ...(packetId !== undefined && { packetId }), dup: packet.dup, digest }, stored, seq.take);
  if (n.record) await cx.kv.put(key, JSON.stringify(n.record));
  return { ...raw, identity: mqttIdentity(seq.epoch, n.seq) };
}

/** Starts an MQTT consumer. @throws TriggerError `TRIGGER_CONSUMER_FAILED` when the broker cannot be reached or refuses */
export async function startMqtt(cx: ConsumerContext): Promise<Consumer> {
  const o = cx.spec.options as KindOptions["mqtt"];
  const { connect } = await import("mqtt");
  const clientId = o.clientId ?? defaultClientName(cx.spec.id);
  const session = createHash("sha256").update(clientId).digest("hex").slice(0, 8);
  const options: IClientOptions = {
    clientId,
    clean: false,
    reconnectPeriod: 1000,
    connectTimeout: 5000,
    ...(o.username !== undefined && { username: o.username }),
    ...(o.passwordEnv !== undefined && { password: cx.env[o.passwordEnv] ?? "" }),
  };
  const seq = await receiveSequence(cx.kv);
  const client: MqttClient = connect(o.url, options);
  let stopped = false;
  // One message at a time (the sequence and its records), in arrival order.
  let queue: Promise<unknown> = Promise.resolve();
  // Runs before the PUBACK; not calling `done` withholds it (the loop restarts the consumer).
  client.handleMessage = (packet, done) => {
    const handled = queue.then(async () => cx.deliver(await identify(cx, seq, session, packet)));
    queue = handled.catch(() => {});
    handled.then(
      () => done(),
      (err: unknown) => {
        if (!stopped) cx.fail(err instanceof Error ? err : new Error(String(err)));
      },
    );
  };
  try {
    await new Promise<void>((resolve, reject) => {
      client.once("connect", () => resolve());
      client.once("error", reject);
      setTimeout(() => reject(new Error(`no answer from ${o.url} within 5 s`)), 5000).unref();
    });
    await client.subscribeAsync(
      o.topics.map((t) => t),
      { qos: 1 },
    );
  } catch (err) {
    client.end(true);
    throw new TriggerError(
      "TRIGGER_CONSUMER_FAILED",
      `MQTT ${o.url}: ${(err as Error).message}; check the broker is up and the trigger's url, topic and credentials`,
      { cause: err },
    );
  }
  client.on("error", (err) => {
    if (!stopped) cx.fail(err);
  });
  return {
    async stop() {
      stopped = true;
      await client.endAsync(true);
    },
  };
}
