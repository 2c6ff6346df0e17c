import { format } from "node:util";
import { currentScope } from "../sdk/runtime.js";
import type { LogLine } from "../store/types.js";

/** Something that can take a captured log line: an execution. */
export interface LogTarget {
  log(level: LogLine["level"], message: string, stepKey: string | null): void;
}

type Method = "log" | "info" | "warn" | "error" | "debug";
const LEVEL: Record<Method, LogLine["level"]> = {
  log: "info",
  info: "info",
  warn: "warn",
  error: "error",
  debug: "debug",
};

/** The console as it was before capture, for printing outside runs. */
export const originalConsole: Record<Method, (...args: unknown[]) => void> = {
  log: console.log.bind(console),
  info: console.info.bind(console),
  warn: console.warn.bind(console),
  error: console.error.bind(console),
  debug: console.debug.bind(console),
};

let installed = false;

/**
 * Routes `console.*` calls made inside a workflow execution to that run's log (and,
 * inside a step body, to that step). Calls made elsewhere pass through unchanged.
 * Idempotent.
 */
export function installConsoleCapture(): void {
  if (installed) return;
  installed = true;
  for (const method of Object.keys(LEVEL) as Method[]) {
    const original = originalConsole[method];
    console[method] = (...args: unknown[]) => {
      const scope = currentScope();
      const target = scope?.execution as LogTarget | undefined;
      if (target && typeof target.log === "function") target.log(LEVEL[method], format(...args), scope!.stepKey);
      else original(...args);
    };
  }
}
