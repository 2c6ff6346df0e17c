/**
 * Diagnostics: what the annotation parser and the lineage validator report about a
 * script. A `warning` means the line was ignored or a default was kept (the seed's
 * fail-safe rule); an `error` means the script must not be loaded as written.
 */

/** How bad a diagnostic is. */
type DiagnosticSeverity = "warning" | "error";

/** One finding about one line of one script. */
export interface Diagnostic {
  /** `warning`: ignored or defaulted, the script still loads. `error`: reject the script. */
  readonly severity: DiagnosticSeverity;
  /** 1-based line number in the script source (0 when not tied to a line). */
  readonly line: number;
  /** What is wrong and what to do about it. */
  readonly message: string;
  /** Stable machine-readable code, e.g. `"ON_URI_UNRECOGNIZED"`. */
  readonly code: string;
  /** The script path, set by the lineage validator (annotation diagnostics leave it unset). */
  readonly script?: string;
}

/** Collects diagnostics while parsing one script. */
export class DiagnosticSink {
  /** Everything reported so far, in report order. */
  readonly items: Diagnostic[] = [];

  /** Report an ignored line or a kept default. */
  warn(line: number, code: string, message: string): void {
    this.items.push({ severity: "warning", line, code, message });
  }

  /** Report a line that makes the script invalid. */
  error(line: number, code: string, message: string): void {
    this.items.push({ severity: "error", line, code, message });
  }
}

/** True when any diagnostic is an error. */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}

/** Render a diagnostic as one line: `path:line: error: message [CODE]`. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = `${d.script ?? "<script>"}:${d.line}`;
  return `${where}: ${d.severity}: ${d.message} [${d.code}]`;
}
