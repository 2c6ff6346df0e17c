/** Where a CLI command reads and writes; real process streams in `main.ts`, buffers in tests. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Working directory commands resolve relative paths against. */
  cwd: string;
  env: Record<string, string | undefined>;
  /** Aborted to stop long-running commands (`dev`, `worker`); SIGINT/SIGTERM in `main.ts`. */
  signal: AbortSignal;
  /**
   * The command runs work in this process (a worker, a server): from now on a closed stdout or
   * stderr (its reader gone: `EPIPE`) loses the output and the command carries on, instead of
   * ending the process quietly as a plain command does (`sluice runs | head`).
   */
  keepRunningWithoutOutput?(): void;
  /** Reads all of standard input (for `--payload-file -`); absent where there is none. */
  readStdin?(): Promise<string>;
  /**
   * Asks the person at the terminal and resolves with their answer line (null when none came
   * within the wait). Absent when standard input is not a terminal: commands then take their
   * default without asking.
   */
  ask?(question: string): Promise<string | null>;
  /**
   * Reads the answer to `question` from standard input, a terminal or a pipe (`sluice preview`
   * answers approvals inline): the next line, or null once input has ended.
   */
  prompt?(question: string): Promise<string | null>;
  /**
   * From now on every line the process prints, on either stream and from any module (console
   * calls, warnings, the final error), is a JSON object (`--log-format json`). Absent where the
   * output is not the process's own (tests, embedding).
   */
  jsonLines?(): void;
}

/** An IO that collects output, for tests and embedding. */
export function bufferIO(
  cwd: string,
  signal: AbortSignal = new AbortController().signal,
  stdin?: string,
): CliIO & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    cwd,
    env: {},
    signal,
    ...(stdin !== undefined && {
      readStdin: async () => stdin,
      prompt: (() => {
        const lines = stdin.split("\n").filter((l, i, all) => i < all.length - 1 || l !== "");
        return async (question: string) => {
          err.push(question);
          return lines.shift() ?? null;
        };
      })(),
    }),
  };
}
