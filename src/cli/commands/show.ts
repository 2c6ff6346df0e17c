import type { Command } from "commander";
import { RunNotFoundError } from "../../sdk/errors.js";
import type { RunRecord } from "../../store/types.js";
import { json, type CommandContext } from "../command.js";
import { runReport } from "../format.js";
import { logJson, runJson, stepJson } from "../json.js";
import { DB_OPTION, DIR_OPTION, withReadEngine } from "../project.js";

/** `sluice show <run>`: a run with its steps, children, attempts, result or error, and logs. */
export function registerShow(program: Command, cx: CommandContext): void {
  program
    .command("show")
    .description("show a run: steps, attempts, result or error, children and logs")
    .argument("<run>", "run id")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (id: string, opts) => {
      await withReadEngine(cx.io, opts, async (engine) => {
        const run = await engine.store.getRun(id);
        if (!run) throw new RunNotFoundError(id);
        const [steps, children, own] = await Promise.all([
          engine.store.getSteps(id),
          engine.store.listRuns({ parentId: id, limit: 10_000 }),
          engine.store.getLogs(id),
        ]);
        children.reverse();
        // The workflow's own lines and each task's lines, in the order they happened.
        const childLogs = await Promise.all(
          children.map(async (c) => (await engine.store.getLogs(c.id)).map((l) => ({ ...l, child: c }))),
        );
        const logs = [...own.map((l) => ({ ...l, child: null as RunRecord | null })), ...childLogs.flat()].sort(
          (a, b) => a.ts - b.ts || a.seq - b.seq,
        );
        if (opts.json) {
          json(cx, {
            ...runJson(run),
            steps: steps.map(stepJson),
            children: children.map(runJson),
            logs: logs.map((l) => ({
              ...logJson(l),
              run: l.runId,
              task: l.child ? (l.child.task ?? l.child.workflow) : null,
            })),
          });
        } else cx.io.stdout(`${runReport(run, steps, children, logs)}\n`);
      });
    });
}
