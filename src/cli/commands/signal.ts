import type { Command } from "commander";
import { json, type CommandContext } from "../command.js";
import { readJsonInput } from "../json-input.js";
import { DB_OPTION, DIR_OPTION, withEngine } from "../project.js";

/** `sluice signal <event> [payload]`: wake the runs waiting on an event. */
export function registerSignal(program: Command, cx: CommandContext): void {
  program
    .command("signal")
    .description("send a signal: wakes every run waiting on the event (ctx.waitFor) with the JSON payload")
    .argument("<event>", "event name")
    .argument("[payload]", "JSON payload", undefined)
    .option("--payload-file <file>", "read the JSON payload from a file (- for standard input)")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (event: string, payloadText: string | undefined, opts) => {
      const payload = await readJsonInput(cx.io, {
        inline: payloadText,
        file: opts.payloadFile,
        inlineName: "signal payload",
        fileFlag: "--payload-file",
        fallback: null,
      });
      await withEngine(cx.io, opts, async (engine) => {
        const woken = await engine.signal(event, payload);
        if (opts.json) json(cx, { event, woken });
        else cx.io.stdout(`woke ${woken} run${woken === 1 ? "" : "s"} waiting on ${JSON.stringify(event)}\n`);
      });
    });
}
