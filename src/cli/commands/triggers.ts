/**
 * `sluice triggers [--json]`: the project's native trigger rows (`pipeline.json`,
 * `sluice.json`) with their state; `sluice triggers pause|resume <id>`.
 */
import type { Command } from "commander";
import { json, type CommandContext } from "../command.js";
import { table } from "../format.js";
import { DB_OPTION, DIR_OPTION, type ProjectContext, withEngine, withReadEngine } from "../project.js";
import type { TriggerSpec } from "../../triggers/spec.js";

async function specsOf(project: ProjectContext): Promise<TriggerSpec[]> {
  const { PipelineCatalog } = await import("../../pipeline/runtime/catalog.js");
  const { projectTriggers } = await import("../../triggers/runtime/load.js");
  return projectTriggers(PipelineCatalog.scan(project.root).folders(), project.config.triggers);
}

function ago(at: string | null, now: number): string {
  if (at === null) return "-";
  const s = Math.max(0, Math.round((now - Date.parse(at)) / 1000));
  return s < 120 ? `${s}s ago` : s < 7200 ? `${Math.round(s / 60)}m ago` : `${Math.round(s / 3600)}h ago`;
}

/** Registers `sluice triggers`. */
export function registerTriggers(program: Command, cx: CommandContext): void {
  const command = program
    .command("triggers")
    .description("list the native triggers (MQTT, NATS, …) of the project with their state; pause or resume one")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (opts) => {
      await withReadEngine(cx.io, opts, async (engine, project) => {
        const { listTriggers } = await import("../../triggers/runtime/list.js");
        const rows = await listTriggers(engine.store, await specsOf(project));
        if (opts.json) return json(cx, rows);
        if (rows.length === 0) {
          cx.io.stdout(
            'no triggers: add rows to a pipeline folder\'s pipeline.json or to sluice.json "triggers" (docs/TRIGGERS.md)\n',
          );
          return;
        }
        const now = Date.now();
        cx.io.stdout(
          `${table(
            ["ID", "KIND", "TARGET", "STATUS", "MESSAGES", "LAST MESSAGE", "LAST ERROR"],
            rows.map((r) => [
              r.id,
              r.kind,
              r.target.name,
              r.status,
              String(r.messages),
              ago(r.lastMessageAt, now),
              r.lastError ? `${ago(r.lastErrorAt, now)}: ${r.lastError.slice(0, 80)}` : "-",
            ]),
          )}\n`,
        );
      });
    });
  for (const action of ["pause", "resume"] as const)
    command
      .command(action)
      .description(
        action === "pause"
          ? "stop consuming a trigger (its messages wait at the source) until resumed"
          : "consume a paused trigger again",
      )
      .argument("<id>", "trigger id, as sluice triggers lists it")
      // --dir, --db and --json are the parent's options (`sluice triggers pause <id> --json`).
      .action(async (id: string, _local, sub: Command) => {
        const opts = sub.optsWithGlobals<{ dir?: string; db?: string; json?: boolean }>();
        await withEngine(cx.io, opts, async (engine, project) => {
          const { setTriggerPaused } = await import("../../triggers/runtime/list.js");
          const changed = await setTriggerPaused(engine.store, await specsOf(project), id, action === "pause");
          if (opts.json) return json(cx, { id, paused: action === "pause", changed });
          cx.io.stdout(
            changed
              ? `${action === "pause" ? "paused" : "resumed"} ${id}\n`
              : `${id} was already ${action === "pause" ? "paused" : "running"}\n`,
          );
        });
      });
}
