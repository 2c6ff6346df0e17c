/**
 * The identity of an MQTT message (pure). MQTT carries no message id that outlives the
 * delivery: the packet identifier of a QoS 1 PUBLISH is only unique while the message is in
 * flight, and is reused afterwards. So the consumer numbers what it receives: each first
 * delivery (`dup` unset) takes the next number of the trigger's receive sequence, and before its
 * run is enqueued the consumer records `packet id → (number, digest of topic and payload)` in the
 * trigger's state. A broker resending an unacknowledged message after a crash (same session,
 * same packet identifier, `dup` set, MQTT 3.1.1 §4.4) finds that record and so the same number,
 * the same run id: the enqueue deduplicates. Two identical messages are two first deliveries:
 * two numbers, two runs.
 *
 * The sequence is `<epoch>:<n>`: a random epoch drawn when the trigger first consumes (kept
 * in its state), so a trigger removed and added again never reuses an old run id.
 */

/** The record kept for a packet identifier while its message may come back. */
export interface InFlight {
  readonly seq: number;
  /** Digest of topic and payload: a resend must carry the same message. */
  readonly digest: string;
}

/** What is known about one received PUBLISH. */
export interface Received {
  /** Packet identifier (absent for QoS 0: never resent). */
  readonly packetId?: number;
  /** The DUP flag: the broker may have sent it before. */
  readonly dup: boolean;
  readonly digest: string;
}

/** The number of a received message and whether its in-flight record must be written first. */
export interface Numbered {
  readonly seq: number;
  /** The record to store before the enqueue (null: none needed, or already stored). */
  readonly record: InFlight | null;
}

/**
 * Numbers one received message. `stored` is the record of its packet identifier, if any;
 * `next` takes a fresh number from the sequence.
 */
export function numberMessage(received: Received, stored: InFlight | null, next: () => number): Numbered {
  if (received.packetId === undefined) return { seq: next(), record: null };
  if (received.dup && stored !== null && stored.digest === received.digest) return { seq: stored.seq, record: null };
  const seq = next();
  return { seq, record: { seq, digest: received.digest } };
}

/** Parses a stored {@link InFlight} (null when missing or unreadable). */
export function decodeInFlight(text: string | null): InFlight | null {
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as InFlight;
    return typeof v.seq === "number" && typeof v.digest === "string" ? v : null;
  } catch {
    return null;
  }
}

/** The identity string of message `seq` of sequence `epoch`. */
export function mqttIdentity(epoch: string, seq: number): string {
  return `mqtt:${epoch}:${seq}`;
}

/** A block of the receive sequence reserved at once (one state write per block, not per message). */
export const SEQ_BLOCK = 1000;

/** The stored sequence: its epoch and the first number not yet reserved. */
export interface SeqState {
  readonly epoch: string;
  readonly next: number;
}

/** Parses the stored sequence (null when missing or unreadable). */
export function decodeSeq(text: string | null): SeqState | null {
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as SeqState;
    return typeof v.epoch === "string" && Number.isSafeInteger(v.next) ? v : null;
  } catch {
    return null;
  }
}
