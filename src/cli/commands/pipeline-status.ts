/** `sluice pipeline status [folder]`: last runs, freshness, open joins and debounce windows, partitions per asset, recent decisions. */
import type { Command } from "commander";
import { PipelineCatalog } from "../../pipeline/runtime/catalog.js";
import { parseOutcomes } from "../../pipeline/runtime/decisions.js";
import { pipelineStatus, type PipelineStatus } from "../../pipeline/runtime/status.js";
import { everySyntaxHint } from "../../pipeline/language.js";
import { json, type CommandContext } from "../command.js";
import { statusLabel, timeLabel } from "../format.js";
import { parseCount } from "../options.js";
import { DB_OPTION, DIR_OPTION, withEngine } from "../project.js";
import { folderArg, pipelineFolder } from "./pipeline-shared.js";

function render(s: PipelineStatus): string {
  const broken = s.scripts.filter((x) => x.error !== null).length;
  const note =
    broken === 0
      ? ""
      : broken === s.scripts.length
        ? "  (NOT LOADED: see sluice pipeline graph)"
        : `  (${broken} script(s) not loaded, the others run)`;
  const out = [`pipeline ${s.folder || "."}${note}`, "  scripts:"];
  for (const x of s.scripts) {
    const r = x.lastRun;
    const last = r
      ? `${statusLabel(r.status)} ${timeLabel(r.finishedAt ?? r.createdAt)} (${r.trigger}${r.partition ? `, partition ${r.partition}` : ""}) ${r.id}${r.error ? `: ${r.error}` : ""}`
      : "never run";
    out.push(`    ${x.path}  ${last}`);
    if (x.error) out.push(`      NOT LOADED: ${x.error}`);
    if (x.freshness)
      out.push(
        `      freshness ${x.freshness.windowSeconds}s: ${x.freshness.stale ? `STALE since ${timeLabel(x.freshness.expiresAt)} (the window expired; last success ${x.freshness.lastSuccess === null ? "never" : timeLabel(x.freshness.lastSuccess)})` : `fresh until ${timeLabel(x.freshness.expiresAt)}`}`,
      );
    for (const t of x.triggers)
      out.push(`      on ${t.kind}: ${t.state.replace("-", " ")}${t.detail ? ` (${t.detail})` : ""}`);
  }
  if (s.joins.length) {
    out.push("  open joins (trigger all):");
    for (const j of s.joins)
      out.push(
        `    ${j.script} partition ${j.partition}: have ${j.have.join(", ")}; waiting for ${j.missing.join(", ") || "nothing"}`,
      );
  }
  const open = s.debounces.filter((d) => d.open);
  if (open.length) {
    out.push("  open debounce windows:");
    for (const d of open)
      out.push(
        `    ${d.script}${d.partition ? ` partition ${d.partition}` : ""}: ${d.writes} write(s), run ${d.run} at ${timeLabel(d.until)}`,
      );
  }
  out.push("  assets:");
  for (const a of s.assets) {
    const parts = a.partitions.map((p) => p.partition ?? "(unpartitioned)");
    out.push(`    ${a.uri}  ${parts.length ? `written: ${parts.join(", ")}` : "not written yet"}`);
  }
  out.push("  recent decisions (newest first):");
  if (s.decisions.length === 0) out.push("    none");
  for (const d of s.decisions) {
    const from = d.producer ? `${d.producer} → ` : "";
    out.push(
      `    ${timeLabel(d.at)} ${from}${d.subscriber}: ${d.outcome}${d.partition ? ` [${d.partition}]` : ""}${d.run ? ` run ${d.run}` : ""}${d.reason ? ` (${d.reason})` : ""}`,
    );
  }
  return out.join("\n");
}

/** Registers `sluice pipeline status`. */
export function registerPipelineStatus(pipeline: Command, cx: CommandContext): void {
  pipeline
    .command("status")
    .description(
      "show a pipeline's last runs, freshness, open joins and debounce windows, written partitions and recent dispatch decisions",
    )
    .argument("[folder]", "pipeline folder (default: every pipeline of the project)")
    .option("--decisions <n>", "how many recent decisions to show", "20")
    .option("--decision-kind <kinds>", "only decisions of these kinds, e.g. dispatched,skipped")
    .option("--decision-run <id>", "only decisions of this run (as producer, or the run started)")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .option("--json", "print JSON")
    .action(async (folderText: string | undefined, opts) => {
      const limit = parseCount(opts.decisions, "--decisions");
      await withEngine(cx.io, opts, async (engine, project) => {
        const catalog = await PipelineCatalog.load(project.root);
        const folders =
          folderText === undefined
            ? catalog.folders()
            : [pipelineFolder(catalog, folderArg(project.root, cx.io.cwd, folderText))];
        const statuses: PipelineStatus[] = [];
        const filter = {
          decisions: limit,
          ...(opts.decisionKind !== undefined && { decisionKinds: parseOutcomes(opts.decisionKind) }),
          ...(opts.decisionRun !== undefined && { decisionRun: opts.decisionRun as string }),
        };
        for (const f of folders) statuses.push(await pipelineStatus(engine.store, f, filter));
        if (opts.json) json(cx, folderText === undefined ? statuses : statuses[0]);
        else
          cx.io.stdout(
            `${statuses.map(render).join("\n\n") || `no pipelines in this project (mark scripts with ${everySyntaxHint("pipeline")})`}\n`,
          );
      });
    });
}
