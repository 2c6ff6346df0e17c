/** Process entry of the `sluice` command. */
import { askTerminal, stdinPrompter } from "./ask.js";
import { jsonOnlyWriter } from "./log-format.js";
import { run } from "./run.js";

const controller = new AbortController();
let signals = 0;
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    signals++;
    if (signals > 1) {
      process.stderr.write(`sluice: second ${sig}, exiting now\n`);
      // 128 + the signal's number, as a shell reports a process that signal ended.
      process.exit(sig === "SIGINT" ? 130 : 143);
    }
    controller.abort();
  });
}

// A reader that stops early (`sluice runs --json | head`) closes the pipe: stop quietly, as Unix tools do;
// output that cannot be written otherwise is one clear line on stderr and exit 1.
// A command running work in this process (a worker, a server) carries on without its output instead:
// a lane worker whose server died writes to a pipe nobody reads, and must still finish its runs.
let outputOptional = false;
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (outputOptional) return;
    if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
    // Any other failure to write (`> file` on a full disk): one line and exit 1, not a stack trace.
    const where = stream === process.stdout ? "its output" : "to stderr";
    process.stderr.write(
      `sluice: could not write ${where} (${err.message}): free space where it goes, or send it elsewhere\n`,
    );
    process.exit(1);
  });
}

/** `--log-format json`: every line written to either stream becomes a JSON object (`jsonOnlyWriter`). */
function jsonLines(): void {
  for (const [name, stream] of [
    ["stdout", process.stdout],
    ["stderr", process.stderr],
  ] as const) {
    if ((stream as { sluiceJson?: boolean }).sluiceJson) continue;
    (stream as { sluiceJson?: boolean }).sluiceJson = true;
    const original = stream.write.bind(stream) as (chunk: string, cb?: (err?: Error | null) => void) => boolean;
    const lines = jsonOnlyWriter((t) => void original(t), name);
    stream.write = ((chunk: string | Uint8Array, encoding?: unknown, cb?: unknown) => {
      lines.write(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      const done = typeof encoding === "function" ? encoding : cb;
      if (typeof done === "function") process.nextTick(done as () => void);
      return true;
    }) as typeof stream.write;
    process.once("exit", () => lines.flush());
  }
}

const code = await run(process.argv.slice(2), {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  cwd: process.cwd(),
  env: process.env,
  signal: controller.signal,
  keepRunningWithoutOutput: () => void (outputOptional = true),
  ...(process.stdin.isTTY && { ask: (question: string) => askTerminal(question, 30_000) }),
  prompt: stdinPrompter(),
  jsonLines,
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  },
});
process.exitCode = code;
// Long-running commands have stopped their timers; anything left (a user module's handle) must not keep us alive.
setTimeout(() => process.exit(code), 200).unref();
