/**
 * `sluice pipeline graph [folder] [--json|--mermaid]`: the lineage graph and every annotation
 * problem with file and line. `--json` also gives each write edge into a lake table its column
 * lineage: what its last managed write recorded in the project's store (read-only; none when
 * the store does not exist yet), else what its SQL gives before a write (`graph-lineage.ts`).
 */
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { formatDiagnostic } from "../../pipeline/diagnostics.js";
import { PipelineCatalog, type PipelineFolder } from "../../pipeline/runtime/catalog.js";
import { graphLineage, writesLakeTables, type GraphLineage } from "../../pipeline/runtime/graph-lineage.js";
import { graphJson, renderMermaid, renderText } from "../../pipeline/runtime/render.js";
import { InvalidInputError } from "../../sdk/errors.js";
import { everySyntaxHint } from "../../pipeline/language.js";
import { json, type CommandContext } from "../command.js";
import { isPostgresUrl } from "../../store/open.js";
import { DB_OPTION, DIR_OPTION, resolveProject, withReadEngine, type ProjectContext } from "../project.js";
import { folderArg, pipelineFolder } from "./pipeline-shared.js";

/** Registers `sluice pipeline graph`. */
export function registerPipelineGraph(pipeline: Command, cx: CommandContext): void {
  pipeline
    .command("graph")
    .description(
      "print a pipeline's lineage graph (scripts, assets, triggers) and its annotation problems; exits 1 when it has errors",
    )
    .argument("[folder]", "pipeline folder (default: every pipeline of the project)")
    .option("--json", "print JSON")
    .option("--mermaid", "print a Mermaid flowchart")
    .option(...DIR_OPTION)
    .option(...DB_OPTION)
    .action(async (folderText: string | undefined, opts) => {
      if (opts.json && opts.mermaid)
        throw new InvalidInputError("choose one of --json and --mermaid", { code: "INVALID_OPTIONS" });
      const project = resolveProject(cx.io, opts.dir, opts.db);
      const catalog = await PipelineCatalog.load(project.root);
      const folders =
        folderText === undefined
          ? catalog.folders()
          : [pipelineFolder(catalog, folderArg(project.root, cx.io.cwd, folderText))];
      if (opts.json) {
        const lineage = await storedLineage(cx, opts, project, folders);
        json(
          cx,
          folderText === undefined ? folders.map((f) => graphJson(f, lineage)) : graphJson(folders[0]!, lineage),
        );
      } else if (opts.mermaid) {
        cx.io.stdout(`${folders.map(renderMermaid).join("\n\n")}\n`);
        for (const f of folders) for (const d of f.diagnostics) cx.io.stderr(`${formatDiagnostic(d)}\n`);
      } else
        cx.io.stdout(
          `${folders.map(renderText).join("\n\n") || `no pipelines in this project (mark scripts with ${everySyntaxHint("pipeline")})`}\n`,
        );
      if (folders.some((f) => !f.ok)) cx.setExitCode(1);
    });
}

/**
 * The column lineage of the folders' lake tables: recorded in the store, else inferred from
 * the scripts' SQL; inferred alone when the store does not exist or cannot be read (said on stderr).
 */
async function storedLineage(
  cx: CommandContext,
  opts: { dir?: string; db?: string },
  project: ProjectContext,
  folders: readonly PipelineFolder[],
): Promise<GraphLineage | undefined> {
  if (!writesLakeTables(folders)) return undefined;
  if (!isPostgresUrl(project.dbPath) && !existsSync(project.dbPath)) return graphLineage(undefined, folders);
  try {
    return await withReadEngine(cx.io, opts, (engine) => graphLineage(engine.store, folders));
  } catch (err) {
    // the graph comes from the files: an unreachable store costs the recorded lineage, not the graph
    cx.io.stderr(
      `note: recorded column lineage not shown (${project.dbLabel}: ${err instanceof Error ? err.message : String(err)}); edges show what the scripts' SQL and // column lines give before a write\n`,
    );
    return graphLineage(undefined, folders);
  }
}
