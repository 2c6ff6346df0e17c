import type { Command } from "commander";
import { describeStatusNames } from "../../core/run-status.js";
import { json, type CommandContext } from "../command.js";
import { runsTable } from "../format.js";
import { runJson } from "../json.js";
import { parseCount, parseStatuses } from "../options.js";
import { DB_OPTION, DIR_OPTION, withReadEngine } from "../project.js";

/** `sluice runs`: list runs, newest first. */
export function registerRuns(program: Command, cx: CommandContext): void {
  program
    .command("runs")
    .description("list runs, newest first")
    .option("--status <list>", `only these statuses, comma-separated: ${describeStatusNames()}`)
    .option("--workflow <name>", "only runs of this workflow")
    .option("--limit <n>", "how many", "20")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (opts) => {
      const status = opts.status ? parseStatuses(opts.status) : undefined;
      const limit = parseCount(opts.limit, "--limit");
      await withReadEngine(cx.io, opts, async (engine) => {
        // One more than asked says whether the list was cut (said on stderr: the table stays pipeable).
        const found = await engine.store.listRuns({ status, workflow: opts.workflow, limit: limit + 1 });
        const runs = found.slice(0, limit);
        if (opts.json) json(cx, runs.map(runJson));
        else {
          cx.io.stdout(`${runsTable(runs)}\n`);
          if (found.length > limit)
            cx.io.stderr(
              `(the newest ${limit} shown: more with --limit ${Math.max(limit * 5, 20)}, or narrow with --status / --workflow)\n`,
            );
        }
      });
    });
}
