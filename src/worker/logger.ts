import type { Logger } from "../sdk/context.js";
import type { LogLine } from "../store/types.js";
import type { LogTarget } from "./console-capture.js";

/** A {@link Logger} whose lines go to `target`'s run (and step, when `stepKey` is set). */
export function createLogger(target: LogTarget, stepKey: string | null): Logger {
  const emit = (level: LogLine["level"]) => (message: string, fields?: Record<string, unknown>) => {
    let text = String(message);
    if (fields && Object.keys(fields).length) {
      try {
        text += ` ${JSON.stringify(fields)}`;
      } catch {
        text += " [unserialisable fields]";
      }
    }
    target.log(level, text, stepKey);
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}
