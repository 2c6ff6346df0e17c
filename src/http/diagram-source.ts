/**
 * The workflow diagram of a published workflow: its source file (project-relative, read
 * only from inside the project root: no `..`, no symlink escape), analysed by
 * `src/diagram` and cached by file, size and modification time.
 */
import { readFile, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, sep } from "node:path";
import type { PayloadFields, WorkflowDiagram } from "../diagram/index.js";
import type { WorkflowInfo } from "../store/types.js";
import { NotFoundError } from "./errors.js";

/** A workflow's diagram with the source it was built from. */
export interface WorkflowDiagramView {
  workflow: string;
  file: string;
  source: string;
  diagram: WorkflowDiagram;
  /** A `defineWorkflow`'s payload fields as its source declares them (`diagram/payload-fields.ts`), else null. */
  payloadFields: PayloadFields | null;
}

/**
 * The diagram of a DuckDB SQL or Bash script (`pipeline/runtime/plain-scripts.ts`): one run of the
 * whole file, `start → end` (nothing in it is durable).
 */
function scriptDiagram(fileName: string, source: string): WorkflowDiagram {
  const lines = source.split("\n");
  return {
    version: 1,
    fileName,
    workflow: null,
    nodes: [
      { id: "start", kind: "start", label: fileName, line: 1, column: 1 },
      { id: "end", kind: "end", label: "end", line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 },
    ],
    edges: [{ from: "start", to: "end" }],
    warnings: [],
  };
}

/** Largest source file analysed (bytes). */
const MAX_SOURCE_BYTES = 2 * 1024 * 1024;

/** Reads and analyses workflow sources under one project root. */
export class DiagramSource {
  private readonly cache = new Map<string, { stamp: string; view: Omit<WorkflowDiagramView, "workflow"> }>();

  /** `root` is the project folder the workflows were loaded from; null when unknown (no diagrams). */
  constructor(private readonly root: string | null) {}

  /**
   * The diagram of `info`'s source file.
   * @throws NotFoundError (code DIAGRAM_UNAVAILABLE) when the workflow has no readable source in the project;
   *   WorkflowSyntaxError when the file does not parse
   */
  async forWorkflow(info: WorkflowInfo): Promise<WorkflowDiagramView> {
    const unavailable = (why: string) =>
      new NotFoundError(`no diagram for workflow ${JSON.stringify(info.name)}: ${why}`, "DIAGRAM_UNAVAILABLE");
    if (!this.root) throw unavailable("this server was started without a project folder");
    if (!info.source) throw unavailable("it was registered in-process, not loaded from a file");
    if (isAbsolute(info.source) || info.source.split(/[\\/]/).includes(".."))
      throw unavailable("its source path leaves the project");
    let file: string;
    let rootReal: string;
    try {
      rootReal = await realpath(this.root);
      file = await realpath(join(rootReal, info.source));
    } catch {
      throw unavailable(`its source file ${info.source} is missing`);
    }
    if (!file.startsWith(rootReal + sep)) throw unavailable("its source file resolves outside the project");
    const st = await stat(file);
    if (!st.isFile() || st.size > MAX_SOURCE_BYTES) throw unavailable("its source is not a readable file under 2 MiB");
    const stamp = `${st.size}:${st.mtimeMs}`;
    const cached = this.cache.get(file);
    if (cached?.stamp === stamp) return { workflow: info.name, ...cached.view };
    const source = await readFile(file, "utf8");
    if (/\.(sql|sh)$/.test(info.source)) {
      const view = { file: info.source, source, diagram: scriptDiagram(info.source, source), payloadFields: null };
      this.cache.set(file, { stamp, view });
      return { workflow: info.name, ...view };
    }
    if (info.source.endsWith(".py")) {
      const { analyzePythonFile } = await import("./python-diagram.js");
      const view = {
        file: info.source,
        source,
        diagram: await analyzePythonFile(file, info.source),
        payloadFields: null,
      };
      this.cache.set(file, { stamp, view });
      return { workflow: info.name, ...view };
    }
    // Loaded on first use: the analyser brings the TypeScript compiler, which most processes never need.
    const { analyzeWorkflowSource, payloadFields } = await import("../diagram/index.js");
    const view = {
      file: info.source,
      source,
      diagram: analyzeWorkflowSource(source, info.source),
      payloadFields: payloadFields(source, info.name),
    };
    this.cache.set(file, { stamp, view });
    return { workflow: info.name, ...view };
  }
}
