/**
 * From a consumed message to a run (pure): its envelope, the run's payload (the row's
 * mapping) and the run id derived from the message identity, so that a message delivered
 * twice (a crash between enqueue and ack) enqueues one run.
 */
import { createHash } from "node:crypto";
import { TriggerError } from "./errors.js";
import type { BodyFormat, Mapping, TriggerSpec } from "./spec.js";

/** A message as a consumer hands it over. */
export interface RawMessage {
  /** The source's identity of the message (NATS: stream and sequence; MQTT: its receive number, `mqtt-identity.ts`). */
  readonly identity?: string;
  readonly bytes: Uint8Array;
  /** MQTT topic. */
  readonly topic?: string;
  /** NATS subject. */
  readonly subject?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What the row's `args` and `idFrom` paths read: the decoded message and where it came from. */
interface Envelope {
  readonly trigger: string;
  readonly kind: string;
  readonly body: unknown;
  readonly topic?: string;
  readonly subject?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Decodes the bytes of a message by `format`. @throws TriggerError `TRIGGER_MESSAGE_INVALID` for JSON that does not parse */
function decodeBody(bytes: Uint8Array, format: BodyFormat): unknown {
  if (format === "base64") return Buffer.from(bytes).toString("base64");
  const text = Buffer.from(bytes).toString("utf8");
  if (format === "text") return text;
  try {
    return JSON.parse(text);
  } catch (err) {
    if (format === "auto") return text;
    throw new TriggerError("TRIGGER_MESSAGE_INVALID", `the message is not JSON (${(err as Error).message})`, {
      cause: err,
    });
  }
}

/** The envelope of a message. */
function envelopeOf(spec: TriggerSpec, raw: RawMessage): Envelope {
  return {
    trigger: spec.id,
    kind: spec.kind,
    body: decodeBody(raw.bytes, spec.mapping.format),
    ...(raw.topic !== undefined && { topic: raw.topic }),
    ...(raw.subject !== undefined && { subject: raw.subject }),
    ...(raw.headers !== undefined && Object.keys(raw.headers).length > 0 && { headers: raw.headers }),
  };
}

/** Reads `path` (object properties only) in `value`; undefined when absent. */
function readPath(value: unknown, path: readonly string[]): unknown {
  let at: unknown = value;
  for (const seg of path) {
    if (typeof at !== "object" || at === null || Array.isArray(at) || !Object.hasOwn(at, seg)) return undefined;
    at = (at as Record<string, unknown>)[seg];
  }
  return at;
}

/**
 * The message's identity: the row's `idFrom` value when set (it must be a scalar), else the
 * source's identity, else a hash of topic and bytes (a source that names no identity: identical
 * messages on one topic count as one; every consumer of this version names one). @throws TriggerError `TRIGGER_MESSAGE_INVALID` when `idFrom` finds no scalar
 */
function messageIdentity(mapping: Mapping, raw: RawMessage, envelope: Envelope): string {
  if (mapping.idFrom) {
    const v = readPath(envelope, mapping.idFrom);
    if (typeof v !== "string" && typeof v !== "number")
      throw new TriggerError(
        "TRIGGER_MESSAGE_INVALID",
        `idFrom $.${mapping.idFrom.join(".")} is ${v === undefined ? "missing" : "not a string or number"} in the message`,
      );
    return `id:${String(v)}`;
  }
  if (raw.identity !== undefined) return raw.identity;
  const h = createHash("sha256");
  h.update(raw.topic ?? raw.subject ?? "");
  h.update("\0");
  h.update(raw.bytes);
  return `sha256:${h.digest("hex")}`;
}

/** The run id of a message: the trigger id and a digest of the identity (stable across redeliveries). */
export function runIdFor(triggerId: string, identity: string): string {
  const digest = createHash("sha256").update(identity).digest("hex").slice(0, 32);
  return `trigger:${triggerId}:${digest}`;
}

/** The run's arguments: the mapped `args`, else the body when it is an object, else `{ payload: body }`. */
function argsOf(mapping: Mapping, envelope: Envelope): Record<string, unknown> {
  if (mapping.args) return Object.fromEntries(mapping.args.map(([name, p]) => [name, readPath(envelope, p) ?? null]));
  const b = envelope.body;
  return typeof b === "object" && b !== null && !Array.isArray(b) ? (b as Record<string, unknown>) : { payload: b };
}

/** Everything needed to enqueue the run of one message. */
export interface MessageRun {
  readonly runId: string;
  readonly identity: string;
  readonly args: Record<string, unknown>;
  readonly envelope: Envelope;
}

/** Maps one raw message of `spec` to its run. @throws TriggerError `TRIGGER_MESSAGE_INVALID` */
export function messageRun(spec: TriggerSpec, raw: RawMessage): MessageRun {
  const envelope = envelopeOf(spec, raw);
  const identity = messageIdentity(spec.mapping, raw, envelope);
  return { runId: runIdFor(spec.id, identity), identity, args: argsOf(spec.mapping, envelope), envelope };
}
