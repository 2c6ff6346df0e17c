/** Errors of native triggers (trigger rows, consumers). */
import { SluiceError } from "../core/errors.js";

/** Stable codes of {@link TriggerError}. */
export type TriggerErrorCode =
  | "TRIGGER_ROW_INVALID"
  | "TRIGGER_NOT_FOUND"
  | "TRIGGER_PAUSED"
  | "TRIGGER_TARGET_UNKNOWN"
  | "TRIGGER_CONSUMER_FAILED"
  | "TRIGGER_MESSAGE_INVALID";

/** A trigger row that does not parse, an unknown trigger, or a consumer that failed. */
export class TriggerError extends SluiceError<TriggerErrorCode> {
  /** A bad row or message fails the same way every time. */
  override get terminal(): boolean {
    return this.code !== "TRIGGER_CONSUMER_FAILED";
  }
}
