import type { Command } from "commander";
import { json, type CommandContext } from "../command.js";
import { readJsonInput } from "../json-input.js";
import { parseDurationOption } from "../options.js";
import { DB_OPTION, DIR_OPTION, withEngine } from "../project.js";

/** `sluice signal <event> [payload]`: wake the runs waiting on an event. */
export function registerSignal(program: Command, cx: CommandContext): void {
  program
    .command("signal")
    .description("send a signal: wakes every run waiting on the event (ctx.waitFor) with the JSON payload")
    .argument("<event>", "event name")
    .argument("[payload]", "JSON payload", undefined)
    .option("--payload-file <file>", "read the JSON payload from a file (- for standard input)")
    .option("--buffer <duration>", "when no run is waiting, keep the signal this long for the next waitFor (e.g. 1h)")
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
      const buffer = opts.buffer === undefined ? undefined : parseDurationOption(opts.buffer, "--buffer");
      await withEngine(cx.io, opts, async (engine) => {
        const { woken, buffered } = await engine.sendSignal(event, payload, buffer === undefined ? {} : { buffer });
        if (opts.json) json(cx, { event, woken, buffered });
        else if (buffered)
          cx.io.stdout(`no run is waiting on ${JSON.stringify(event)}: kept for ${opts.buffer} for the next waitFor\n`);
        else if (woken === 0)
          cx.io.stdout(
            `no run is waiting on ${JSON.stringify(event)}: the signal is dropped (pass --buffer 1h to keep it for the next waitFor)\n`,
          );
        else cx.io.stdout(`woke ${woken} run${woken === 1 ? "" : "s"} waiting on ${JSON.stringify(event)}\n`);
      });
    });
}
