/**
 * The NATS JetStream consumer (`nats` client): a durable pull consumer with explicit acks
 * (created when absent) on an existing stream. Each message is acked (`ackAck`, confirmed by
 * the server) only after its run is enqueued; an unacked message is redelivered by the server
 * after the row's `ackWait`. The message identity is the stream and its sequence number.
 * Several messages are enqueued at once (acks are per message, in any order).
 */
import { TriggerError } from "../errors.js";
import type { KindOptions } from "../kinds.js";
import { type Consumer, type ConsumerContext, defaultClientName } from "./consumer.js";

/** Messages of one trigger being enqueued at once. */
const MAX_IN_FLIGHT = 64;

/** Starts a NATS JetStream consumer. @throws TriggerError `TRIGGER_CONSUMER_FAILED` */
export async function startNats(cx: ConsumerContext): Promise<Consumer> {
  const o = cx.spec.options as KindOptions["nats"];
  const nats = await import("nats");
  const durable = o.consumer ?? defaultClientName(cx.spec.id);
  let nc: Awaited<ReturnType<typeof nats.connect>>;
  try {
    nc = await nats.connect({
      servers: [...o.servers],
      maxReconnectAttempts: -1,
      timeout: 5000,
      ...(o.user !== undefined && { user: o.user }),
      ...(o.passwordEnv !== undefined && { pass: cx.env[o.passwordEnv] ?? "" }),
    });
  } catch (err) {
    throw new TriggerError(
      "TRIGGER_CONSUMER_FAILED",
      `NATS ${o.servers.join(",")}: ${(err as Error).message}; check the server is up and the trigger's servers and credentials`,
      { cause: err },
    );
  }
  let messages: Awaited<
    ReturnType<Awaited<ReturnType<ReturnType<typeof nc.jetstream>["consumers"]["get"]>>["consume"]>
  >;
  try {
    const jsm = await nc.jetstreamManager();
    try {
      await jsm.consumers.info(o.stream, durable);
    } catch {
      await jsm.consumers.add(o.stream, {
        durable_name: durable,
        ack_policy: nats.AckPolicy.Explicit,
        ack_wait: nats.nanos(o.ackWaitMs),
        deliver_policy: nats.DeliverPolicy.All,
        ...(o.subject !== undefined && { filter_subject: o.subject }),
      });
    }
    const consumer = await nc.jetstream().consumers.get(o.stream, durable);
    messages = await consumer.consume({ max_messages: 256 });
  } catch (err) {
    await nc.close().catch(() => {});
    throw new TriggerError(
      "TRIGGER_CONSUMER_FAILED",
      `NATS stream ${o.stream}: ${(err as Error).message}; the stream must exist (nats stream add ${o.stream} --subjects '…')`,
      { cause: err },
    );
  }
  let stopped = false;
  // Up to MAX_IN_FLIGHT messages are enqueued at once (their enqueues share group commits);
  // each is acked on its own once its run is stored.
  const inFlight = new Set<Promise<void>>();
  let failure: unknown = null;
  const loop = (async () => {
    for await (const m of messages) {
      if (stopped || failure !== null) break;
      const headers: Record<string, string> = {};
      if (m.headers) for (const [k, v] of m.headers) headers[k] = v.join(",");
      const one = cx
        .deliver({
          identity: `nats:${m.info.stream}:${m.info.streamSequence}`,
          bytes: m.data,
          subject: m.subject,
          headers,
        })
        .then(() => m.ackAck())
        .then(
          () => undefined,
          (err: unknown) => {
            failure ??= err;
          },
        )
        .finally(() => inFlight.delete(one));
      inFlight.add(one);
      if (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    if (failure !== null) throw failure instanceof Error ? failure : new Error(String(failure));
  })();
  loop.catch((err: unknown) => {
    if (!stopped) cx.fail(err instanceof Error ? err : new Error(String(err)));
  });
  nc.closed()
    .then((err) => {
      if (!stopped) cx.fail(err ?? new Error("NATS connection closed"));
    })
    .catch(() => {});
  return {
    async stop() {
      stopped = true;
      messages.stop();
      await nc.close().catch(() => {});
      await loop.catch(() => {});
    },
  };
}
