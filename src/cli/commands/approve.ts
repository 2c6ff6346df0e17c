import type { Command } from "commander";
import { RunNotFoundError, SluiceError } from "../../sdk/errors.js";
import { APPROVAL_REFUSAL_CODES, type ApprovalDecisionResult, explainOutcome } from "../../engine/approvals.js";
import { json, type CommandContext } from "../command.js";
import { readJsonInput } from "../json-input.js";
import { localUser } from "../local-user.js";
import { DB_OPTION, DIR_OPTION, withEngine } from "../project.js";

/** The decision was refused (already decided, timed out, self-approval, invalid form...); `code` is the outcome's, as over HTTP. */
export class ApprovalRefusedError extends SluiceError {
  constructor(
    readonly outcome: Exclude<ApprovalDecisionResult["outcome"], "resolved">,
    runId: string,
    problems: string[] = [],
  ) {
    super(APPROVAL_REFUSAL_CODES[outcome], explainOutcome(outcome, runId, problems));
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
    .option("--as <user>", "who decides (default: the local user: $USER, else $LOGNAME, else the OS account)")
    .option("--key <key>", "which approval, when a run waits on several (default: the pending one)")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (runId: string, opts) => {
      const value = await readJsonInput(cx.io, {
        inline: opts.value,
        file: opts.valueFile,
        inlineName: "--value",
        fileFlag: "--value-file",
        fallback: undefined,
      });
      const actor = opts.as ?? localUser(cx.io.env);
      await withEngine(cx.io, opts, async (engine) => {
        const result = await engine.decideApproval({
          runId,
          key: opts.key,
          approve: !opts.reject,
          value,
          actor,
          via: "cli",
        });
        if (result.outcome === "run-not-found") throw new RunNotFoundError(runId);
        if (opts.json) {
          const refused =
            result.outcome === "resolved" ? null : new ApprovalRefusedError(result.outcome, runId, result.problems);
          json(cx, {
            runId,
            key: result.key,
            outcome: result.outcome,
            problems: result.problems ?? [],
            ...(refused && { error: { code: refused.code, message: refused.message } }),
          });
          if (refused) cx.setExitCode(1);
          return;
        }
        if (result.outcome !== "resolved") throw new ApprovalRefusedError(result.outcome, runId, result.problems);
        cx.io.stdout(`${opts.reject ? "rejected" : "approved"} ${runId} (${result.key}) as ${actor}\n`);
      });
    });
}
