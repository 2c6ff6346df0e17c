import type { CliIO } from "./io.js";

/** What every command gets: the IO and a way to set the exit code. */
export interface CommandContext {
  io: CliIO;
  setExitCode(code: number): void;
}

/** Prints `value` as JSON on stdout. */
export function json(cx: CommandContext, value: unknown): void {
  cx.io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** Resolves when the IO's abort signal fires (SIGINT/SIGTERM, or a test stopping the command). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/** Waits `ms`, or less if `signal` aborts first (a follow loop's poll that Ctrl-C cuts short). */
export function pauseUnlessAborted(signal: AbortSignal, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal.addEventListener("abort", stop, { once: true });
  });
}
