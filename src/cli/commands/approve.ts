import type { Command } from "commander";
import { SluiceError } from "../../sdk/errors.js";
import { explainOutcome } from "../../engine/approvals.js";
import { json, type CommandContext } from "../command.js";
import { readJsonInput } from "../json-input.js";
import { DB_OPTION, DIR_OPTION, withEngine } from "../project.js";

/** The decision was refused (already decided, timed out, self-approval, invalid form...). */
export class ApprovalRefusedError extends SluiceError {
  constructor(message: string, readonly outcome: string) {
    super("APPROVAL_REFUSED", message);
  }
}

/** `sluice approve <run>`: approve (or `--reject`) a run's pending waitForApproval. */
export function registerApprove(program: Command, cx: CommandContext): void {
  program
    .command("approve")
    .description("approve (or reject) a run waiting in waitForApproval; the workflow resumes")
    .argument("<run>", "run id")
    .option("--reject", "reject instead of approve")
    .option("--value <json>", "form data as JSON (for approvals with a form)")
    .option("--value-file <file>", "read the form data from a JSON file (- for standard input)")
    .option("--as <user>", "who decides (default: $USER)")
    .option("--key <key>", "which approval, when a run waits on several (default: the pending one)")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (runId: string, opts) => {
      const value = await readJsonInput(cx.io, { inline: opts.value, file: opts.valueFile, inlineName: "--value", fileFlag: "--value-file", fallback: undefined });
      const actor = opts.as ?? cx.io.env.USER ?? "cli";
      await withEngine(cx.io, opts, async (engine) => {
        const result = await engine.decideApproval({ runId, key: opts.key, approve: !opts.reject, value, actor, via: "cli" });
        if (opts.json) {
          json(cx, { runId, key: result.key, outcome: result.outcome, problems: result.problems ?? [] });
          if (result.outcome !== "resolved") cx.setExitCode(1);
          return;
        }
        if (result.outcome !== "resolved") throw new ApprovalRefusedError(explainOutcome(result.outcome, runId, result.problems), result.outcome);
        cx.io.stdout(`${opts.reject ? "rejected" : "approved"} ${runId} (${result.key}) as ${actor}\n`);
      });
    });
}
