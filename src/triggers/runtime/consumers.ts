/** The consumer of each kind, its client loaded only when a trigger of that kind starts. */
import type { TriggerSpec } from "../spec.js";
import type { StartConsumer } from "./consumer.js";

/** The consumer of a kind (a project without such triggers never loads its client). */
export async function consumerFor(kind: TriggerSpec["kind"]): Promise<StartConsumer> {
  if (kind === "mqtt") return (await import("./mqtt.js")).startMqtt;
  // Uploads and webhook calls arrive through the API on any server; nothing to consume.
  if (kind === "data_upload" || kind === "webhook") return async () => ({ stop: async () => {} });
  if (kind === "gcp") return (await import("./gcp.js")).startGcp;
  if (kind === "sqs") return (await import("./sqs.js")).startSqs;
  if (kind === "kafka") return (await import("./kafka.js")).startKafka;
  if (kind === "email") return (await import("./email.js")).startEmail;
  if (kind === "postgres") return (await import("./postgres.js")).startPostgres;
  return (await import("./nats.js")).startNats;
}
