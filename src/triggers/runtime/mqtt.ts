/**
 * The MQTT consumer (`mqtt` client): a persistent session (`clean: false`, a fixed client id)
 * subscribed with QoS 1. The client's `handleMessage` runs before it sends the PUBACK, so the
 * PUBACK goes out only after the run is enqueued; a process that dies in between leaves the
 * message in flight in the broker's session, which redelivers it when the session reconnects
 * (on this server or the one that takes the trigger over).
 */
import type { MqttClient, IClientOptions } from "mqtt";
import { TriggerError } from "../errors.js";
import type { KindOptions } from "../kinds.js";
import { type Consumer, type ConsumerContext, defaultClientName } from "./consumer.js";

/** Starts an MQTT consumer. @throws TriggerError `TRIGGER_CONSUMER_FAILED` when the broker cannot be reached or refuses */
export async function startMqtt(cx: ConsumerContext): Promise<Consumer> {
  const o = cx.spec.options as KindOptions["mqtt"];
  const { connect } = await import("mqtt");
  const options: IClientOptions = {
    clientId: o.clientId ?? defaultClientName(cx.spec.id),
    clean: false,
    reconnectPeriod: 1000,
    connectTimeout: 5000,
    ...(o.username !== undefined && { username: o.username }),
    ...(o.passwordEnv !== undefined && { password: cx.env[o.passwordEnv] ?? "" }),
  };
  const client: MqttClient = connect(o.url, options);
  let stopped = false;
  // Runs before the PUBACK; not calling `done` withholds it (the loop restarts the consumer).
  client.handleMessage = (packet, done) => {
    cx.deliver({ bytes: packet.payload as Buffer, topic: packet.topic }).then(
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
