/**
 * The CLI as a function: `run(argv, io)` parses, dispatches and returns the exit
 * code, so every command is testable without spawning a process.
 */
import { Command, CommanderError } from "commander";
import { terminalSafe } from "../core/terminal-text.js";
import { isDriverFailure, toStorageError } from "../store/storage-error.js";
import { SluiceError } from "../sdk/errors.js";
import type { CommandContext } from "./command.js";
import type { CliIO } from "./io.js";
import { VERSION } from "../sdk/version.js";

/** Registers one top-level command (with its options, arguments and subcommands) on the program. */
type Register = (program: Command, cx: CommandContext) => void;

/**
 * The top-level commands in help order, each imported only when needed: a process runs
 * one command, and a lane worker (`sluice worker`, started on every first run of an idle
 * group) should not load the HTTP layer, the pipeline CLI or the lake to do it.
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  dev: async () => (await import("./commands/dev.js")).registerDev,
  worker: async () => (await import("./commands/worker.js")).registerWorker,
  enqueue: async () => (await import("./commands/enqueue.js")).registerEnqueue,
  runs: async () => (await import("./commands/runs.js")).registerRuns,
  show: async () => (await import("./commands/show.js")).registerShow,
  logs: async () => (await import("./commands/logs.js")).registerLogs,
  signal: async () => (await import("./commands/signal.js")).registerSignal,
  cancel: async () => (await import("./commands/cancel.js")).registerCancel,
  approve: async () => (await import("./commands/approve.js")).registerApprove,
  server: async () => (await import("./commands/server.js")).registerServer,
  token: async () => (await import("./commands/token.js")).registerToken,
  pipeline: async () => (await import("./commands/pipeline.js")).registerPipeline,
  lake: async () => (await import("./commands/lake.js")).registerLake,
  deploy: async () => (await import("./commands/deploy.js")).registerDeploy,
  push: async () => (await import("./commands/deploy.js")).registerPush,
  pull: async () => (await import("./commands/pull.js")).registerPull,
  releases: async () => (await import("./commands/releases.js")).registerReleases,
  preview: async () => (await import("./commands/preview.js")).registerPreview,
  triggers: async () => (await import("./commands/triggers.js")).registerTriggers,
};

/**
 * The commands to register for `argv`: only the named one when `argv` starts with a
 * command name (its own `--help` lists only its options); none for `--version`; every one
 * otherwise (`--help`, `help <command>`, no command, an unknown command and its suggestion).
 */
export function commandsFor(argv: readonly string[]): string[] {
  const first = argv[0];
  if (first === "--version" || first === "-V") return [];
  return first !== undefined && Object.hasOwn(COMMANDS, first) ? [first] : Object.keys(COMMANDS);
}

/** Runs the CLI with `argv` (without `node` and the script). Returns the exit code. */
export async function run(argv: string[], io: CliIO): Promise<number> {
  let exitCode = 0;
  const cx: CommandContext = { io, setExitCode: (c) => (exitCode = c) };
  const program = new Command("sluice")
    .description("Durable workflows and asset pipelines for TypeScript")
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: (t) => io.stdout(t), writeErr: (t) => io.stderr(t) })
    .showHelpAfterError("(run sluice --help for usage)");
  try {
    for (const register of await Promise.all(commandsFor(argv).map((name) => COMMANDS[name]!()))) register(program, cx);
    for (const c of program.commands)
      c.exitOverride().configureOutput({ writeOut: (t) => io.stdout(t), writeErr: (t) => io.stderr(t) });
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are not errors; commander already printed everything else.
      return err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.code === "commander.help"
        ? 0
        : 2;
    }
    if (err instanceof SluiceError) {
      // A message of several lines (a worker's stderr tail) keeps its lines, each indented.
      io.stderr(`sluice: ${terminalSafe(err.message, { indent: "  " })}\n`);
      return 1;
    }
    // The database failed under a command (locked, read-only, full): one line, not a stack trace.
    if (isDriverFailure(err)) {
      io.stderr(`sluice: ${terminalSafe(toStorageError(err).message)}\n`);
      return 1;
    }
    io.stderr(`sluice: unexpected error: ${terminalSafe((err as Error)?.stack ?? String(err), { indent: "" })}\n`);
    return 1;
  }
}
