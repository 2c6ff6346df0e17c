/**
 * The mutable state the annotation parser fills line by line, and the helpers the
 * per-keyword handlers share. Internal to the parser.
 */
import type {
  AssetColumn,
  AssetInput,
  AssetOverride,
  DataTest,
  DurationAnnotation,
  MaterializeAnnotation,
  NativeTriggerMarker,
  PartitionedAnnotation,
  RetryAnnotation,
  TagAnnotation,
  TriggerMode,
} from "./annotation-types.js";
import type { DiagnosticSink } from "./diagnostics.js";
import { type CommentPrefix, hintPrefix, type ScriptLanguage } from "./language.js";

/** Parser state for one script. */
export interface ParseState {
  readonly sink: DiagnosticSink;
  readonly language: ScriptLanguage;
  /** The comment prefix diagnostics write annotation lines with (the language's own, {@link hintPrefix}). */
  readonly prefix: CommentPrefix;
  readonly source: string;
  pipeline: boolean;
  readonly inputs: AssetInput[];
  readonly nativeTriggers: NativeTriggerMarker[];
  trigger?: { readonly mode: TriggerMode; readonly line: number };
  debounce?: DurationAnnotation;
  freshness?: DurationAnnotation;
  partitioned?: PartitionedAnnotation;
  /** Line of the first `// partitioned` that claimed the slot (valid, or rejected with an error). */
  partitionedLine?: number;
  retry?: RetryAnnotation;
  tag?: TagAnnotation;
  materialize?: MaterializeAnnotation;
  /** Line of the first `// materialize` that claimed the slot (valid, or rejected with an error). */
  materializeLine?: number;
  readonly dataTests: DataTest[];
  readonly columns: Map<string, { sources: AssetColumn[]; lines: number[] }>;
  readonly assetOverrides: AssetOverride[];
  /**
   * First line of an unmistakable pipeline annotation (`on`, `partitioned`, `trigger`) that only
   * has an effect on a `// pipeline` member.
   */
  memberOnlyLine?: number;
}

/** A handler for one annotation keyword: `rest` is the text after the keyword, trimmed. */
export type AnnotationHandler = (state: ParseState, rest: string, line: number) => void;

/** A fresh state. */
export function createParseState(sink: DiagnosticSink, language: ScriptLanguage, source: string): ParseState {
  return {
    sink,
    language,
    prefix: hintPrefix(language),
    source,
    pipeline: false,
    inputs: [],
    nativeTriggers: [],
    dataTests: [],
    columns: new Map(),
    assetOverrides: [],
  };
}

/** Remember that a line is an unmistakable pipeline annotation that needs the `// pipeline` marker. */
export function noteMemberOnly(state: ParseState, line: number): void {
  state.memberOnlyLine ??= line;
}

/**
 * Report a later line of a first-wins annotation. Identical repeats are harmless and silent;
 * a different value gets a warning naming the line that wins.
 */
export function reportLaterLine(
  state: ParseState,
  keyword: string,
  line: number,
  firstLine: number,
  same: boolean,
): void {
  if (same) return;
  state.sink.warn(
    line,
    "DUPLICATE_IGNORED",
    `this ${state.prefix} ${keyword} is ignored: the first ${state.prefix} ${keyword} (line ${firstLine}) wins; remove one of them`,
  );
}

/** Split on whitespace, dropping empties. */
export function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== "");
}

/** True for a plain SQL-style column identifier. */
export function isColumnName(text: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(text);
}
