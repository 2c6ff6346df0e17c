/**
 * One question at the terminal (`CliIO.ask` in `main.ts`): prints it on stderr and reads one
 * line from standard input, giving up after `timeoutMs`. Only used when standard input is a
 * terminal; a second Ctrl-C while it waits is handled by `main.ts` (exit now).
 */
import { createInterface } from "node:readline";

/** Asks `question`; resolves with the answer line, or null after `timeoutMs` or at end of input. */
export function askTerminal(question: string, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    // terminal: false keeps the tty in cooked mode, so Ctrl-C stays a signal for main.ts.
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
    let settled = false;
    const finish = (answer: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      rl.close();
      resolve(answer);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    process.stderr.write(question);
    rl.once("line", (line) => finish(line));
    rl.once("close", () => finish(null));
  });
}
