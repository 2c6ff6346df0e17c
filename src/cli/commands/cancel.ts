import type { Command } from "commander";
import { safe } from "../format.js";
import { json, type CommandContext } from "../command.js";
import { DB_OPTION, DIR_OPTION, withEngine } from "../project.js";

/** `sluice cancel <run>`: cancel a run that has not finished (and its children). */
export function registerCancel(program: Command, cx: CommandContext): void {
  program
    .command("cancel")
    .description("cancel a run that has not finished, and its unfinished children")
    .argument("<run>", "run id")
    .option("--reason <text>", "why (stored with the run)")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (id: string, opts) => {
      await withEngine(cx.io, opts, async (engine) => {
        const before = await engine.store.getRun(id);
        const status = await engine.cancel(id, opts.reason ?? null);
        const already =
          before !== null && before.status !== "pending" && before.status !== "running" && before.status !== "waiting";
        if (opts.json) json(cx, { id, status, cancelled: !already });
        else if (already) cx.io.stdout(`run ${safe(id)} had already finished (${status}); nothing to cancel\n`);
        else cx.io.stdout(`cancelled ${safe(id)}\n`);
      });
    });
}
