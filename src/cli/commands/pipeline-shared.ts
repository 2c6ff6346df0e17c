/** Helpers shared by the `sluice pipeline …` commands. */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { InvalidInputError } from "../../sdk/errors.js";
import { PipelineCatalog, type PipelineFolder } from "../../pipeline/runtime/catalog.js";
import { PipelineInvalidError, PipelineRuntimeError } from "../../pipeline/runtime/errors.js";
import { cascadeEdges, scriptId } from "../../pipeline/lineage-graph.js";
import { everySyntaxHint } from "../../pipeline/language.js";
export { planSteps } from "../../pipeline/runtime/plan.js";

/** The project-relative folder named by a `<folder>` argument (relative to the project or to the working directory). */
export function folderArg(root: string, cwd: string, arg: string): string {
  const fromCwd = resolve(cwd, arg);
  const inside = fromCwd === root || fromCwd.startsWith(root + sep);
  const abs =
    !isAbsolute(arg) && existsSync(resolve(root, arg))
      ? resolve(root, arg)
      : inside && existsSync(fromCwd)
        ? fromCwd
        : resolve(root, arg);
  if (!(abs === root || abs.startsWith(root + sep)))
    throw new InvalidInputError(`${arg} is outside the project ${root}; pass a folder of the project such as f/demo`, {
      code: "INVALID_FOLDER",
    });
  if (!existsSync(abs) || !statSync(abs).isDirectory())
    throw new PipelineRuntimeError("PIPELINE_FOLDER_NOT_FOUND", `folder ${arg} does not exist in ${root}`);
  return relative(root, abs).split(sep).join("/");
}

/** The folder's pipeline. @throws PIPELINE_FOLDER_NOT_FOUND when no script in it has `// pipeline` */
export function pipelineFolder(catalog: PipelineCatalog, folder: string): PipelineFolder {
  const f = catalog.folder(folder);
  if (!f) {
    const known = catalog.folders().map((x) => x.folder || ".");
    throw new PipelineRuntimeError(
      "PIPELINE_FOLDER_NOT_FOUND",
      `no pipeline in ${folder || "."}: mark its scripts with a line ${everySyntaxHint("pipeline")}${known.length ? `; pipelines in this project: ${known.join(", ")}` : ""}`,
    );
  }
  return f;
}

/**
 * Refuses a plan that includes a script that is not loaded (the rest of the folder runs).
 * @throws PipelineInvalidError naming each such step and its error
 */
export function assertStepsLoaded(folder: PipelineFolder, steps: readonly string[]): void {
  const broken = steps.filter((s) => folder.broken.has(s));
  if (broken.length > 0)
    throw new PipelineInvalidError(
      folder.folder,
      broken.map((s) => `${s} is not loaded: ${folder.broken.get(s)}`),
    );
}

/** The member paths `path` depends on through the folder's cascade edges, transitively. */
export function upstreamOf(folder: PipelineFolder, path: string): string[] {
  const edges = cascadeEdges(folder.analysis.graph);
  const seen = new Set<string>([scriptId(path)]);
  const queue = [scriptId(path)];
  while (queue.length > 0) {
    const id = queue.shift()!;
    for (const e of edges)
      if (e.to === id && !seen.has(e.from)) {
        seen.add(e.from);
        queue.push(e.from);
      }
  }
  seen.delete(scriptId(path));
  return [...seen].filter((id) => id.startsWith("script:")).map((id) => id.slice("script:".length));
}
