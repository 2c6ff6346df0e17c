/**
 * The annotation parser: reads every comment line of a script (any of the `//`, `#`, `--`
 * prefixes, anywhere in the file, one annotation per line) and returns the typed
 * {@link ScriptAnnotations} plus line-numbered diagnostics.
 *
 * Fail-safe, as the seed prescribes: unknown annotations, unknown options and malformed
 * values are ignored (a warning, the default kept) rather than failing the load. Errors are
 * reserved for what would fail the run or write wrong data (invalid tz/start/format/key,
 * broken `// materialize`, data tests without managed materialize, a join that can never fire).
 *
 * @example
 * const { annotations, diagnostics } = parseAnnotations(source, { path: "f/demo/transform.ts" });
 */
import { onDebounce, onFreshness, onPipeline, onRetry, onTag, onTrigger } from "./annotate-basic.js";
import { onAsset } from "./annotate-asset.js";
import { onColumn, onDataTest } from "./annotate-lineage.js";
import { onMaterialize } from "./annotate-materialize.js";
import { onOn } from "./annotate-on.js";
import { onPartitioned } from "./annotate-partitioned.js";
import { finalizeAnnotations } from "./annotation-finalize.js";
import { createParseState, type AnnotationHandler, type ParseState } from "./annotation-state.js";
import type { ScriptAnnotations } from "./annotation-types.js";
import { checkNearMiss } from "./near-miss.js";
import { DiagnosticSink, type Diagnostic } from "./diagnostics.js";
import {
  commentBody,
  languageFromPath,
  languageFromPrefix,
  type CommentPrefix,
  type ScriptLanguage,
} from "./language.js";

/** How to read a script. All optional; give at least the path or the language when you can. */
export interface ParseAnnotationsOptions {
  /** The script path; its extension picks the language (`.ts`, `.js`, `.py`, `.sh`, `.sql`, …). */
  readonly path?: string;
  /** The language, overriding the one implied by the path. */
  readonly language?: ScriptLanguage;
  /** The script's comment prefix, used for the language when neither of the above says. */
  readonly commentPrefix?: CommentPrefix;
}

/** The result of {@link parseAnnotations}. */
export interface ParsedAnnotations {
  readonly annotations: ScriptAnnotations;
  /** Warnings (ignored lines, kept defaults) and errors (reject the script), in line order. */
  readonly diagnostics: readonly Diagnostic[];
  /** The language the script was read as. */
  readonly language: ScriptLanguage;
}

/** The annotation keywords and their handlers. */
const ANNOTATION_HANDLERS: Readonly<Record<string, AnnotationHandler>> = {
  pipeline: onPipeline,
  on: onOn,
  trigger: onTrigger,
  debounce: onDebounce,
  freshness: onFreshness,
  partitioned: onPartitioned,
  materialize: onMaterialize,
  data_test: onDataTest,
  column: onColumn,
  tag: onTag,
  retry: onRetry,
  asset: onAsset,
};

/** Resolve the language from the options (explicit language, then path, then prefix). */
export function resolveLanguage(options: ParseAnnotationsOptions): ScriptLanguage {
  if (options.language) return options.language;
  const fromPath = options.path === undefined ? "unknown" : languageFromPath(options.path);
  if (fromPath !== "unknown") return fromPath;
  return options.commentPrefix ? languageFromPrefix(options.commentPrefix) : "unknown";
}

function parseLine(state: ParseState, text: string, line: number): void {
  const comment = commentBody(text);
  if (!comment || comment.body === "") return;
  const match = /^(\S+)(?:\s+([\s\S]*))?$/.exec(comment.body);
  const keyword = match?.[1] ?? "";
  const rest = (match?.[2] ?? "").trim();
  const handler = Object.hasOwn(ANNOTATION_HANDLERS, keyword) ? ANNOTATION_HANDLERS[keyword] : undefined;
  if (handler) handler(state, rest, line);
  else checkNearMiss(state.sink, keyword, rest, line, state.prefix);
}

/**
 * Parse every pipeline annotation of a script.
 *
 * Never throws for bad annotations: everything wrong is a diagnostic with its line number.
 */
export function parseAnnotations(source: string, options: ParseAnnotationsOptions = {}): ParsedAnnotations {
  const language = resolveLanguage(options);
  const sink = new DiagnosticSink();
  const state = createParseState(sink, language, source);
  source.split(/\r?\n/).forEach((text, index) => parseLine(state, text, index + 1));
  const annotations = finalizeAnnotations(state);
  const diagnostics = [...sink.items].sort((a, b) => a.line - b.line);
  return { annotations, diagnostics, language };
}
