/**
 * The options of each consumed trigger kind, as written on a trigger row (pure). A kind
 * parser returns the options or throws a {@link TriggerError} whose message names the field
 * and shows an example. Schedule and webhook rows stay in `pipeline/runtime/triggers-config.ts`.
 */
import { toMillis, type Duration } from "../core/duration.js";
import { TriggerError } from "./errors.js";

/** Trigger kinds whose messages Sluice consumes into runs. */
export const CONSUMED_KINDS = ["mqtt", "nats", "postgres", "data_upload", "email", "kafka", "sqs", "gcp"] as const;
/** One of {@link CONSUMED_KINDS}. */
export type ConsumedKind = (typeof CONSUMED_KINDS)[number];

/** True when `kind` is consumed by this version. */
export function isConsumedKind(kind: string): kind is ConsumedKind {
  return (CONSUMED_KINDS as readonly string[]).includes(kind);
}

/**
 * Kinds of a `sluice.json` trigger row run by the trigger supervisor: the consumed kinds plus
 * `webhook` (a URL per row for any runnable; a pipeline step's webhook stays a `pipeline.json`
 * row, `pipeline/runtime/triggers-config.ts`).
 */
export const ROW_KINDS = [...CONSUMED_KINDS, "webhook"] as const;
/** One of {@link ROW_KINDS}. */
export type RowKind = (typeof ROW_KINDS)[number];

/** True when `kind` is a kind of a `sluice.json` trigger row (schedule rows apart). */
export function isRowKind(kind: string): kind is RowKind {
  return (ROW_KINDS as readonly string[]).includes(kind);
}

/** An MQTT trigger: a persistent QoS 1 subscription. */
interface MqttOptions {
  /** Broker URL, `mqtt://host:1883` or `mqtts://…`. */
  readonly url: string;
  /** Topic filters (`+` and `#` wildcards). */
  readonly topics: readonly string[];
  /** Client id of the persistent session (default: derived from the trigger id). */
  readonly clientId?: string;
  readonly username?: string;
  /** Environment variable holding the password (never the password itself). */
  readonly passwordEnv?: string;
}

/** A NATS JetStream trigger: a durable pull consumer with explicit acks. */
interface NatsOptions {
  /** Server URLs, `nats://host:4222`. */
  readonly servers: readonly string[];
  /** The stream to consume (it must exist). */
  readonly stream: string;
  /** Subject filter within the stream (default: all of it). */
  readonly subject?: string;
  /** Durable consumer name (default: derived from the trigger id); created when absent. */
  readonly consumer?: string;
  /** How long the server waits for an ack before redelivering, ms (default 30 000). */
  readonly ackWaitMs: number;
  readonly user?: string;
  /** Environment variable holding the password. */
  readonly passwordEnv?: string;
}

/** Row changes of a Postgres table, captured by a database trigger into an outbox table. */
export interface PostgresOptions {
  /** `postgres://…` of the watched database, or absent when `urlEnv` names it. */
  readonly url?: string;
  /** Environment variable holding the URL (keeps the password out of the file). */
  readonly urlEnv?: string;
  /** The table, `schema.table` or `table` (schema `public`). */
  readonly schema: string;
  readonly table: string;
  /** Which changes fire (default all three). */
  readonly events: ReadonlyArray<"insert" | "update" | "delete">;
}

/** An authenticated HTTP upload (`POST /api/triggers/<id>/upload`) stored in the object store. */
export interface UploadOptions {
  /** Key prefix of stored uploads (default `uploads/<trigger id>/`). */
  readonly prefix?: string;
  /** Largest upload accepted, bytes (default 100 MiB). */
  readonly maxBytes: number;
}

/**
 * A webhook of any runnable (`POST /api/triggers/<id>/webhook`, token with scope `operate`):
 * the request body is the message. Its identity is the `Idempotency-Key` header when sent (a
 * retried call finds its run), else the row's `idFrom`, else the request itself (every call
 * a new run).
 */
export interface WebhookOptions {
  /** Largest body accepted, bytes (default 1 MiB). */
  readonly maxBytes: number;
}

/** An SMTP listener: each accepted mail becomes a run, its attachments objects. */
export interface EmailOptions {
  /** Port to listen on (the server that consumes the trigger listens). */
  readonly port: number;
  /** Address to listen on (default 127.0.0.1). */
  readonly host: string;
  /** Accepted recipients: addresses or `@domain`s (default: any). */
  readonly to?: readonly string[];
  /** SMTP AUTH user (with `passwordEnv`); without it no authentication is asked. */
  readonly username?: string;
  readonly passwordEnv?: string;
  /** Largest mail accepted, bytes (default 25 MiB). */
  readonly maxBytes: number;
  /**
   * STARTTLS: the PEM certificate (chain) and private key files, relative to the project or
   * absolute. With them, AUTH is only accepted after STARTTLS (no password in clear text).
   */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
  /** Refuse mail sent without STARTTLS (needs `tlsCertFile`/`tlsKeyFile`; default false). */
  readonly requireTls: boolean;
}

/** A Kafka consumer group member with manual offset commits (`kafkajs`). */
export interface KafkaOptions {
  /** Bootstrap brokers, `host:port`. */
  readonly brokers: readonly string[];
  readonly topics: readonly string[];
  /** Consumer group (default `sluice-<id>`). */
  readonly groupId?: string;
  /** Where a new group starts: the oldest message (true) or new ones only (default false). */
  readonly fromBeginning: boolean;
}

/** An SQS queue, long-polled; a message is deleted once its run is stored. */
export interface SqsOptions {
  readonly queueUrl: string;
  /** AWS region (default from the queue URL's host, else `AWS_REGION`). */
  readonly region?: string;
  /** Another endpoint (an SQS-compatible server). */
  readonly endpoint?: string;
}

/** A Google Cloud Pub/Sub subscription, streaming pull; a message is acked once its run is stored. */
export interface GcpOptions {
  /** The Google Cloud project. */
  readonly projectId: string;
  /** The subscription's id (or its full `projects/…/subscriptions/…` name). */
  readonly subscription: string;
  /** When set, the subscription is created on this topic if it does not exist. */
  readonly topic?: string;
  /** Ack deadline of a subscription Sluice creates, seconds (10–600, default 60); an existing one keeps its own. */
  readonly ackDeadlineSeconds: number;
  /** Messages held at once (flow control, default 100). */
  readonly maxMessages: number;
  /** Another endpoint, `host:port` (default: Google's, or `PUBSUB_EMULATOR_HOST`). */
  readonly apiEndpoint?: string;
}

/** Options by kind. */
export interface KindOptions {
  gcp: GcpOptions;
  sqs: SqsOptions;
  kafka: KafkaOptions;
  email: EmailOptions;
  data_upload: UploadOptions;
  webhook: WebhookOptions;
  mqtt: MqttOptions;
  nats: NatsOptions;
  postgres: PostgresOptions;
}

type Raw = Record<string, unknown>;

function bad(where: string, message: string): TriggerError {
  return new TriggerError("TRIGGER_ROW_INVALID", `${where}: ${message}`);
}

function only(raw: Raw, where: string, known: readonly string[]): void {
  for (const k of Object.keys(raw))
    if (!known.includes(k)) throw bad(where, `unknown option ${JSON.stringify(k)} (known: ${known.join(", ")})`);
}

function str(raw: Raw, key: string, where: string, example: string, required: true): string;
function str(raw: Raw, key: string, where: string, example: string, required?: false): string | undefined;
function str(raw: Raw, key: string, where: string, example: string, required = false): string | undefined {
  const v = raw[key];
  if (v === undefined && !required) return undefined;
  if (typeof v !== "string" || v.trim() === "")
    throw bad(where, `"${key}" must be a non-empty string such as ${JSON.stringify(example)}`);
  return v;
}

function strings(raw: Raw, key: string, where: string, example: string): string[] {
  const v = raw[key];
  const list = typeof v === "string" ? [v] : v;
  if (!Array.isArray(list) || list.length === 0 || list.some((x) => typeof x !== "string" || x.trim() === ""))
    throw bad(where, `"${key}" must be a string or a non-empty list of strings such as ${JSON.stringify(example)}`);
  return list as string[];
}

/** The duration option `key` in ms, `fallback` when absent. */
function durationMs(raw: Raw, key: string, where: string, fallback: number): number {
  if (raw[key] === undefined) return fallback;
  try {
    return toMillis(raw[key] as Duration);
  } catch (err) {
    throw bad(where, `"${key}": ${(err as Error).message}`);
  }
}

/** The whole positive number option `key` (a count of `unit`), `fallback` when absent. */
function wholeCount(raw: Raw, key: string, where: string, fallback: number, unit: string, example: number): number {
  const v = raw[key] ?? fallback;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1)
    throw bad(where, `"${key}" must be a whole number of ${unit}, e.g. ${example}`);
  return v;
}

function url(value: string, where: string, key: string, schemes: readonly string[]): void {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw bad(where, `"${key}" ${JSON.stringify(value)} is not a URL; write ${schemes[0]}://host:port`);
  }
  if (!schemes.includes(u.protocol.slice(0, -1)))
    throw bad(where, `"${key}" must use ${schemes.map((s) => `${s}://`).join(" or ")}, got ${JSON.stringify(value)}`);
}

const MQTT_KEYS = ["url", "topic", "topics", "clientId", "username", "passwordEnv"];
const PG_KEYS = ["url", "urlEnv", "table", "events"];
const PG_EVENTS = ["insert", "update", "delete"] as const;
const IDENT = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

function parsePostgres(raw: Raw, where: string): PostgresOptions {
  only(raw, where, PG_KEYS);
  if ((raw.url === undefined) === (raw.urlEnv === undefined))
    throw bad(where, `give either "url" ("postgres://user@host/db") or "urlEnv" (an environment variable holding it)`);
  const u = str(raw, "url", where, "postgres://app@127.0.0.1/app");
  if (u !== undefined) url(u, where, "url", ["postgres", "postgresql"]);
  const t = str(raw, "table", where, "public.orders", true).split(".");
  if (t.length > 2 || t.some((x) => !IDENT.test(x)))
    throw bad(where, `"table" must be "table" or "schema.table" of plain identifiers, e.g. "public.orders"`);
  const events = raw.events === undefined ? [...PG_EVENTS] : strings(raw, "events", where, "insert");
  for (const e of events)
    if (!(PG_EVENTS as readonly string[]).includes(e))
      throw bad(where, `"events" may hold ${PG_EVENTS.join(", ")}, got ${JSON.stringify(e)}`);
  return {
    ...(u !== undefined && { url: u }),
    ...(raw.urlEnv !== undefined && { urlEnv: str(raw, "urlEnv", where, "ORDERS_DATABASE_URL", true) }),
    schema: t.length === 2 ? t[0]! : "public",
    table: t[t.length - 1]!,
    events: events as PostgresOptions["events"],
  };
}

const PUBSUB_NAME = /^(projects\/[a-z][a-z0-9-]{4,28}[a-z0-9]\/(subscriptions|topics)\/)?[A-Za-z][\w.~+%-]{2,254}$/;

function parseGcp(raw: Raw, where: string): GcpOptions {
  only(raw, where, ["projectId", "subscription", "topic", "ackDeadline", "maxMessages", "apiEndpoint"]);
  const projectId = str(raw, "projectId", where, "my-project", true);
  const subscription = str(raw, "subscription", where, "sluice-orders", true);
  const topic = str(raw, "topic", where, "orders");
  for (const [k, v] of [
    ["subscription", subscription],
    ["topic", topic],
  ] as const)
    if (v !== undefined && !PUBSUB_NAME.test(v))
      throw bad(
        where,
        `"${k}" must be a Pub/Sub id (a letter, then 2–254 letters, digits or - _ . ~ + %), got ${JSON.stringify(v)}`,
      );
  const ackMs = durationMs(raw, "ackDeadline", where, 60_000);
  if (ackMs < 10_000 || ackMs > 600_000)
    throw bad(where, `"ackDeadline" must be between 10s and 600s (Pub/Sub's range)`);
  const max = wholeCount(raw, "maxMessages", where, 100, "messages", 100);
  const endpoint = str(raw, "apiEndpoint", where, "127.0.0.1:8085");
  return {
    projectId,
    subscription,
    ackDeadlineSeconds: Math.round(ackMs / 1000),
    maxMessages: max,
    ...(topic !== undefined && { topic }),
    ...(endpoint !== undefined && { apiEndpoint: endpoint }),
  };
}

const NATS_KEYS = ["servers", "url", "stream", "subject", "consumer", "ackWait", "user", "passwordEnv"];

/** Parses the kind-specific options of a row (`common` keys already removed). @throws TriggerError */
export function parseKindOptions<K extends RowKind>(kind: K, raw: Raw, where: string): KindOptions[K] {
  if (kind === "mqtt") {
    only(raw, where, MQTT_KEYS);
    const u = str(raw, "url", where, "mqtt://127.0.0.1:1883", true);
    url(u, where, "url", ["mqtt", "mqtts", "tcp", "ws", "wss"]);
    const topics = strings(raw, raw.topics !== undefined ? "topics" : "topic", where, "orders/#");
    const out: MqttOptions = {
      url: u,
      topics,
      ...(raw.clientId !== undefined && { clientId: str(raw, "clientId", where, "sluice-orders", true) }),
      ...(raw.username !== undefined && { username: str(raw, "username", where, "sluice", true) }),
      ...(raw.passwordEnv !== undefined && { passwordEnv: str(raw, "passwordEnv", where, "MQTT_PASSWORD", true) }),
    };
    return out as KindOptions[K];
  }
  if (kind === "postgres") return parsePostgres(raw, where) as KindOptions[K];
  if (kind === "sqs") {
    only(raw, where, ["queueUrl", "region", "endpoint"]);
    const q = str(raw, "queueUrl", where, "https://sqs.eu-west-1.amazonaws.com/123456789012/orders", true);
    url(q, where, "queueUrl", ["https", "http"]);
    const e = str(raw, "endpoint", where, "http://127.0.0.1:9324");
    if (e !== undefined) url(e, where, "endpoint", ["https", "http"]);
    const out: SqsOptions = {
      queueUrl: q,
      ...(raw.region !== undefined && { region: str(raw, "region", where, "eu-west-1", true) }),
      ...(e !== undefined && { endpoint: e }),
    };
    return out as KindOptions[K];
  }
  if (kind === "kafka") {
    only(raw, where, ["brokers", "topic", "topics", "groupId", "fromBeginning"]);
    const brokers = strings(raw, "brokers", where, "127.0.0.1:9092");
    for (const b of brokers)
      if (!/^[^\s:/]+:\d{1,5}$/.test(b)) throw bad(where, `"brokers" entries are host:port, got ${JSON.stringify(b)}`);
    if (raw.fromBeginning !== undefined && typeof raw.fromBeginning !== "boolean")
      throw bad(where, `"fromBeginning" must be true or false`);
    const out: KafkaOptions = {
      brokers,
      topics: strings(raw, raw.topics !== undefined ? "topics" : "topic", where, "orders"),
      fromBeginning: raw.fromBeginning === true,
      ...(raw.groupId !== undefined && { groupId: str(raw, "groupId", where, "sluice-orders", true) }),
    };
    return out as KindOptions[K];
  }
  if (kind === "email") {
    only(raw, where, [
      "port",
      "host",
      "to",
      "username",
      "passwordEnv",
      "maxBytes",
      "tlsCertFile",
      "tlsKeyFile",
      "requireTls",
    ]);
    const port = raw.port;
    if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535)
      throw bad(where, `"port" must be a TCP port such as 2525`);
    const max = wholeCount(raw, "maxBytes", where, 25 * 1024 * 1024, "bytes", 26214400);
    if ((raw.username === undefined) !== (raw.passwordEnv === undefined))
      throw bad(where, `"username" and "passwordEnv" go together (SMTP AUTH)`);
    if ((raw.tlsCertFile === undefined) !== (raw.tlsKeyFile === undefined))
      throw bad(where, `"tlsCertFile" and "tlsKeyFile" go together (STARTTLS: the PEM certificate and its key)`);
    if (raw.requireTls !== undefined && typeof raw.requireTls !== "boolean")
      throw bad(where, `"requireTls" must be true or false`);
    if (raw.requireTls === true && raw.tlsCertFile === undefined)
      throw bad(where, `"requireTls" needs "tlsCertFile" and "tlsKeyFile" (the certificate STARTTLS offers)`);
    return {
      requireTls: raw.requireTls === true,
      ...(raw.tlsCertFile !== undefined && {
        tls: {
          certFile: str(raw, "tlsCertFile", where, "certs/smtp.pem", true),
          keyFile: str(raw, "tlsKeyFile", where, "certs/smtp-key.pem", true),
        },
      }),
      port,
      host: str(raw, "host", where, "127.0.0.1") ?? "127.0.0.1",
      maxBytes: max,
      ...(raw.to !== undefined && { to: strings(raw, "to", where, "orders@example.com").map((x) => x.toLowerCase()) }),
      ...(raw.username !== undefined && { username: str(raw, "username", where, "sluice", true) }),
      ...(raw.passwordEnv !== undefined && { passwordEnv: str(raw, "passwordEnv", where, "SMTP_PASSWORD", true) }),
    } as KindOptions[K];
  }
  if (kind === "gcp") return parseGcp(raw, where) as KindOptions[K];
  if (kind === "data_upload") {
    only(raw, where, ["prefix", "maxBytes"]);
    const prefix = str(raw, "prefix", where, "uploads/orders/");
    if (prefix !== undefined && (prefix.startsWith("/") || prefix.split("/").includes("..")))
      throw bad(where, `"prefix" must be a relative key prefix such as "uploads/orders/" (no leading / or ..)`);
    const max = wholeCount(raw, "maxBytes", where, 100 * 1024 * 1024, "bytes", 10485760);
    return { ...(prefix !== undefined && { prefix }), maxBytes: max } as KindOptions[K];
  }
  if (kind === "webhook") {
    only(raw, where, ["maxBytes"]);
    return { maxBytes: wholeCount(raw, "maxBytes", where, 1024 * 1024, "bytes", 1048576) } as KindOptions[K];
  }
  only(raw, where, NATS_KEYS);
  const servers = strings(raw, raw.servers !== undefined ? "servers" : "url", where, "nats://127.0.0.1:4222");
  for (const s of servers) url(s, where, "servers", ["nats", "tls"]);
  const ackWaitMs = durationMs(raw, "ackWait", where, 30_000);
  if (ackWaitMs < 1000) throw bad(where, `"ackWait" must be at least 1s (the time a message may take to enqueue)`);
  const out: NatsOptions = {
    servers,
    stream: str(raw, "stream", where, "ORDERS", true),
    ackWaitMs,
    ...(raw.subject !== undefined && { subject: str(raw, "subject", where, "orders.>", true) }),
    ...(raw.consumer !== undefined && { consumer: str(raw, "consumer", where, "sluice-orders", true) }),
    ...(raw.user !== undefined && { user: str(raw, "user", where, "sluice", true) }),
    ...(raw.passwordEnv !== undefined && { passwordEnv: str(raw, "passwordEnv", where, "NATS_PASSWORD", true) }),
  };
  return out as KindOptions[K];
}
