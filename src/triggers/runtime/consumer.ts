/**
 * What every kind's consumer does: connect to its source, hand each message to `deliver`,
 * and acknowledge it to the source only once `deliver` has resolved (the run is durably
 * enqueued). A message whose `deliver` rejects is not acknowledged: the consumer reports the
 * failure through `fail` and the trigger loop restarts it, so the source delivers it again.
 */
import type { ObjectStore } from "../../assets/object-store.js";
import type { RawMessage } from "../message.js";
import type { TriggerSpec } from "../spec.js";

/** Enqueues the run of a message; resolves once it is durable. */
type Deliver = (message: RawMessage) => Promise<void>;

/**
 * A trigger's own durable state in the store's key-value table (keys under
 * `trigger:state:<id>:`; removed with the trigger's row): what a consumer must remember across
 * restarts and takeovers, e.g. the MQTT receive sequence or the Postgres capture it installed.
 * A key is a name without `:` (the state of a removed trigger is found by its id, before the last `:`).
 */
export interface TriggerKv {
  get(key: string): Promise<string | null>;
  put(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Prefix of every state key of trigger `id`. */
export function stateKeyPrefix(id: string): string {
  return `trigger:state:${id}:`;
}

/** A running consumer. */
export interface Consumer {
  /** Disconnects; unacknowledged messages stay with the source. */
  stop(): Promise<void>;
}

/** What a consumer is started with. */
export interface ConsumerContext {
  readonly spec: TriggerSpec;
  readonly deliver: Deliver;
  /** The consumer failed (connection lost for good, a delivery failed): the loop restarts it. */
  readonly fail: (err: Error) => void;
  /** Environment for `passwordEnv`. */
  readonly env: Record<string, string | undefined>;
  /** The trigger's durable state. */
  readonly kv: TriggerKv;
  /** The project's folder (relative file options such as TLS certificates resolve inside it). */
  readonly root?: string;
  /** The project's object store (email attachments), when the server has one. */
  readonly objects?: () => Promise<ObjectStore>;
}

/** Starts a consumer; resolves once it is connected and subscribed. */
export type StartConsumer = (cx: ConsumerContext) => Promise<Consumer>;

/** The client id / durable consumer name of a trigger, when its row names none. */
export function defaultClientName(triggerId: string): string {
  return `sluice-${triggerId.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}
