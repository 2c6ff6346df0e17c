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

/**
 * A reader of standard input line by line, terminal or pipe (`CliIO.prompt`): each call prints
 * `question` on stderr and resolves with the next line, or null once input has ended. One reader
 * serves every question, so lines piped in together are all kept.
 */
export function stdinPrompter(
  input: NodeJS.ReadableStream = process.stdin,
): (question: string) => Promise<string | null> {
  let lines: ReturnType<typeof lineQueue> | null = null;
  return (question) => {
    lines ??= lineQueue(input);
    process.stderr.write(question);
    return lines.next();
  };
}

/** Lines of `input` as a queue: `next()` resolves with the next line, or null after the end. */
function lineQueue(input: NodeJS.ReadableStream): { next(): Promise<string | null> } {
  const rl = createInterface({ input, terminal: false });
  const ready: string[] = [];
  const waiting: Array<(line: string | null) => void> = [];
  let ended = false;
  rl.on("line", (line) => {
    const w = waiting.shift();
    if (w) w(line);
    else ready.push(line);
  });
  rl.on("close", () => {
    ended = true;
    for (const w of waiting.splice(0)) w(null);
  });
  return {
    next: () => {
      if (ready.length) return Promise.resolve(ready.shift()!);
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
}
