/**
 * The CLI as a function: `run(argv, io)` parses, dispatches and returns the exit
 * code, so every command is testable without spawning a process.
 */
import { Command, CommanderError } from "commander";
import { terminalSafe } from "../core/terminal-text.js";
import { isDriverFailure, toStorageError } from "../store/storage-error.js";
import { SluiceError } from "../sdk/errors.js";
import type { CommandContext } from "./command.js";
import { registerApprove } from "./commands/approve.js";
import { registerCancel } from "./commands/cancel.js";
import { registerDev } from "./commands/dev.js";
import { registerEnqueue } from "./commands/enqueue.js";
import { registerLake } from "./commands/lake.js";
import { registerPipeline } from "./commands/pipeline.js";
import { registerRuns } from "./commands/runs.js";
import { registerServer } from "./commands/server.js";
import { registerShow } from "./commands/show.js";
import { registerSignal } from "./commands/signal.js";
import { registerToken } from "./commands/token.js";
import { registerWorker } from "./commands/worker.js";
import type { CliIO } from "./io.js";
import { VERSION } from "../sdk/version.js";

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
  for (const register of [
    registerDev,
    registerWorker,
    registerEnqueue,
    registerRuns,
    registerShow,
    registerSignal,
    registerCancel,
    registerApprove,
    registerServer,
    registerToken,
    registerPipeline,
    registerLake,
  ]) {
    register(program, cx);
  }
  for (const c of program.commands)
    c.exitOverride().configureOutput({ writeOut: (t) => io.stdout(t), writeErr: (t) => io.stderr(t) });
  try {
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
