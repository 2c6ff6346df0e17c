/**
 * Convenience entry points that run the whole pure pipeline layer: parse a script's
 * annotations and detect its assets; build and validate a folder's lineage graph.
 */
import { parseAnnotations, type ParseAnnotationsOptions } from "./annotations.js";
import { detectAssets, type DetectedAssets } from "./detect-assets.js";
import type { CodeFindings } from "./detect-types.js";
import { hasErrors, type Diagnostic } from "./diagnostics.js";
import type { ScriptLanguage } from "./language.js";
import { buildLineageGraph } from "./lineage-graph.js";
import type { LineageGraph, PipelineScript } from "./lineage-types.js";
import { validatePipeline } from "./lineage-validate.js";

/** A script file to analyse. */
export interface ScriptSource {
  readonly path: string;
  readonly source: string;
  /** Overrides the language implied by the path's extension. */
  readonly language?: ScriptLanguage;
  /** Used for the language when the path has no known extension. */
  readonly commentPrefix?: ParseAnnotationsOptions["commentPrefix"];
  /** What the script's own language's parser found (`ducklake()` helper calls), when the caller ran one. */
  readonly code?: CodeFindings;
}

/** One analysed script. */
export interface AnalyzedScript extends PipelineScript {
  readonly language: ScriptLanguage;
  readonly assets: DetectedAssets;
  /** Annotation and detection diagnostics, with `script` set, in line order. */
  readonly diagnostics: readonly Diagnostic[];
}

/** Parse a script's annotations and detect its assets. Never throws for bad input. */
export function analyzeScript(file: ScriptSource): AnalyzedScript {
  const parsed = parseAnnotations(file.source, file);
  const assets = detectAssets(file.source, {
    language: parsed.language,
    annotations: parsed.annotations,
    ...(file.code && { code: file.code }),
  });
  const diagnostics = [...parsed.diagnostics, ...assets.diagnostics]
    .sort((a, b) => a.line - b.line)
    .map((d) => ({ ...d, script: file.path }));
  return { path: file.path, language: parsed.language, annotations: parsed.annotations, assets, diagnostics };
}

/** A whole folder, analysed. */
export interface AnalyzedPipeline {
  readonly scripts: readonly AnalyzedScript[];
  readonly graph: LineageGraph;
  /** Every diagnostic: per-script ones first (by path), then graph validation. */
  readonly diagnostics: readonly Diagnostic[];
  /** False when any diagnostic is an error: the pipeline must not be loaded. */
  readonly ok: boolean;
}

/** Analyse every script of a folder, build its lineage graph and validate it. */
export function analyzePipeline(files: Iterable<ScriptSource>): AnalyzedPipeline {
  const scripts = [...files].map(analyzeScript).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const graph = buildLineageGraph(scripts);
  const diagnostics = [...scripts.flatMap((s) => s.diagnostics), ...validatePipeline(graph)];
  return { scripts, graph, diagnostics, ok: !hasErrors(diagnostics) };
}
