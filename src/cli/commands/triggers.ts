/**
 * `sluice triggers [--json]`: the project's native trigger rows (`pipeline.json`,
 * `sluice.json`) with their state, then its pipeline steps' schedule and webhook rows
 * (`pipeline.json`); `sluice triggers pause|resume <id>`.
 */
import type { Command } from "commander";
import { json, type CommandContext } from "../command.js";
import { table } from "../format.js";
import { DB_OPTION, DIR_OPTION, type ProjectContext, withEngine, withReadEngine } from "../project.js";
import type { TriggerSpec } from "../../triggers/spec.js";
import type { PipelineFolder } from "../../pipeline/runtime/catalog.js";

async function foldersOf(project: ProjectContext): Promise<readonly PipelineFolder[]> {
  const { PipelineCatalog } = await import("../../pipeline/runtime/catalog.js");
  return PipelineCatalog.scan(project.root).folders();
}

async function specsOf(project: ProjectContext, folders?: readonly PipelineFolder[]): Promise<TriggerSpec[]> {
  const { projectTriggers } = await import("../../triggers/runtime/load.js");
  return projectTriggers(folders ?? (await foldersOf(project)), project.config.triggers);
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
        const { stepTriggers } = await import("../../pipeline/runtime/step-triggers.js");
        const folders = await foldersOf(project);
        const rows = await listTriggers(engine.store, await specsOf(project, folders));
        // --json stays the array of native triggers that scripts read; the steps' rows are in the text and the API.
        if (opts.json) return json(cx, rows);
        const steps = stepTriggers(folders);
        const now = Date.now();
        cx.io.stdout(
          rows.length === 0
            ? 'no native triggers (MQTT, NATS, …): add rows to a pipeline folder\'s pipeline.json or to sluice.json "triggers" (docs/TRIGGERS.md)\n'
            : `${table(
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
        if (steps.length > 0)
          cx.io.stdout(
            `\npipeline steps' schedules and webhooks (a schedule pauses with sluice schedules):\n${table(
              ["STEP", "KIND", "DETAIL", "DECLARED IN"],
              steps.map((t) => [t.script, t.kind, t.detail, t.configuredIn]),
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
      // --dir, --db and --json are the parent's options (`sluice triggers pause <id> --json`): shown in its help too.
      .configureHelp({ showGlobalOptions: true })
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
