/**
 * Errors raised by the diagram analyser. The analyser throws only for source that is not valid
 * TypeScript; anything it merely does not understand becomes a warning in the diagram instead.
 *
 * They extend the engine's `SluiceError`: a stable `code`, an optional `cause`, a message that says what to do.
 *
 * @module
 */
import { SluiceError } from "../sdk/errors.js";

/** Base class of the diagram analyser's errors. */
export class DiagramError extends SluiceError {}

/** One syntax problem reported by the TypeScript parser (1-based position). */
export interface SyntaxProblem {
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
  /** The parser's message, e.g. `')' expected.`. */
  message: string;
  /** The TypeScript diagnostic number, e.g. `1005`. */
  tsCode: number;
}

/**
 * The workflow source does not parse. Not retryable: fix the source at `line`/`column` and analyse
 * again. `problems` lists every syntax error the parser reported; `line`/`column` are the first one's.
 *
 * @example
 * ```ts
 * try { analyzeWorkflowSource(src) } catch (e) {
 *   if (e instanceof WorkflowSyntaxError) showMarker(e.line, e.column, e.message);
 * }
 * ```
 */
export class WorkflowSyntaxError extends DiagramError {
  /** The file name given to the analyser. */
  readonly fileName: string;
  /** 1-based line of the first syntax error. */
  readonly line: number;
  /** 1-based column of the first syntax error. */
  readonly column: number;
  /** Every syntax error reported, in source order. */
  readonly problems: readonly SyntaxProblem[];

  constructor(fileName: string, problems: readonly SyntaxProblem[]) {
    const first = problems[0] ?? { line: 1, column: 1, message: "unparseable source", tsCode: 0 };
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
    super(
      "DIAGRAM_SYNTAX_ERROR",
      `${fileName}:${first.line}:${first.column}: ${first.message}${more} — fix the syntax error to see the workflow diagram`,
    );
    this.fileName = fileName;
    this.line = first.line;
    this.column = first.column;
    this.problems = problems;
  }
}
