/** `sluice pipeline graph [folder] [--json|--mermaid]`: the lineage graph and every annotation problem with file and line. */
import type { Command } from "commander";
import { formatDiagnostic } from "../../pipeline/diagnostics.js";
import { PipelineCatalog } from "../../pipeline/runtime/catalog.js";
import { graphJson, renderMermaid, renderText } from "../../pipeline/runtime/render.js";
import { InvalidInputError } from "../../sdk/errors.js";
import { json, type CommandContext } from "../command.js";
import { DIR_OPTION, resolveProject } from "../project.js";
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
    .action(async (folderText: string | undefined, opts) => {
      if (opts.json && opts.mermaid)
        throw new InvalidInputError("choose one of --json and --mermaid", { code: "INVALID_OPTIONS" });
      const project = resolveProject(cx.io, opts.dir);
      const catalog = PipelineCatalog.scan(project.root);
      const folders =
        folderText === undefined
          ? catalog.folders()
          : [pipelineFolder(catalog, folderArg(project.root, cx.io.cwd, folderText))];
      if (opts.json) json(cx, folderText === undefined ? folders.map(graphJson) : graphJson(folders[0]!));
      else if (opts.mermaid) {
        cx.io.stdout(`${folders.map(renderMermaid).join("\n\n")}\n`);
        for (const f of folders) for (const d of f.diagnostics) cx.io.stderr(`${formatDiagnostic(d)}\n`);
      } else
        cx.io.stdout(
          `${folders.map(renderText).join("\n\n") || "no pipelines in this project (mark scripts with // pipeline)"}\n`,
        );
      if (folders.some((f) => !f.ok)) cx.setExitCode(1);
    });
}
