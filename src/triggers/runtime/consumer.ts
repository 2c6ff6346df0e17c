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
  /** The project's object store (email attachments), when the server has one. */
  readonly objects?: () => Promise<ObjectStore>;
}

/** Starts a consumer; resolves once it is connected and subscribed. */
export type StartConsumer = (cx: ConsumerContext) => Promise<Consumer>;

/** The client id / durable consumer name of a trigger, when its row names none. */
export function defaultClientName(triggerId: string): string {
  return `sluice-${triggerId.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}
