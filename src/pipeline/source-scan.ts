/**
 * Small lexical helpers for best-effort asset detection: blanking comment lines, mapping
 * offsets to line numbers, reading string literals (with `${partition}` / `{partition}`
 * kept as the token) and splitting a call's top-level arguments. No parser, no AST.
 */
import type { ScriptLanguage } from "./language.js";

/** Replace every comment line (native prefix of `language`) with an empty line, keeping line numbers. */
export function blankCommentLines(source: string, language: ScriptLanguage): string {
  const prefixes =
    language === "sql"
      ? ["--"]
      : language === "unknown"
        ? ["//", "#", "--"]
        : language === "typescript" || language === "javascript"
          ? ["//"]
          : ["#"];
  return source
    .split("\n")
    .map((line) => (prefixes.some((p) => line.trimStart().startsWith(p)) ? "" : line))
    .join("\n");
}

/** A function from a string offset to its 1-based line number. */
export function lineLocator(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/** A string literal read from source. */
export interface StringLiteral {
  /** The value, with partition interpolations rewritten to `{partition}`. */
  readonly value: string;
  /** True when it interpolates something other than `partition` (the path is only known at run time). */
  readonly dynamic: boolean;
  /** Offset just after the closing quote. */
  readonly end: number;
}

const PARTITION_EXPR = /^\s*partition\s*$/;

/**
 * Rewrite `${partition}` (as left inside a quote nested in a template literal) to the
 * `{partition}` token, and report whether any other `${…}` remains.
 */
function normalizeInterpolations(value: string): { value: string; dynamic: boolean } {
  const rewritten = value.replace(/\$\{\s*partition\s*\}/g, "{partition}");
  return { value: rewritten, dynamic: rewritten.includes("${") };
}

function readTriple(text: string, i: number, fString: boolean): StringLiteral | undefined {
  const quote = text.slice(i, i + 3);
  const close = text.indexOf(quote, i + 3);
  if (close === -1) return undefined;
  let value = text.slice(i + 3, close);
  let dynamic = false;
  if (fString) {
    value = value.replace(/\{([^{}]*)\}/g, (all, expr: string) => {
      if (PARTITION_EXPR.test(expr)) return "{partition}";
      dynamic = true;
      return all;
    });
  }
  return { value, dynamic, end: close + 3 };
}

/**
 * Read the string literal starting at `index`: `'…'`, `"…"`, a backtick template, Python
 * triple-quoted strings and f-strings. Returns `undefined` when there is no literal there or
 * it is not closed.
 */
export function readStringLiteral(text: string, index: number): StringLiteral | undefined {
  let i = index;
  const fString = /[fF]/.test(text[i] ?? "") && /["']/.test(text[i + 1] ?? "");
  if (fString) i++;
  const quote = text[i];
  if (quote !== "'" && quote !== '"' && quote !== "`") return undefined;
  if (quote !== "`" && text.startsWith(quote.repeat(3), i)) return readTriple(text, i, fString);
  const interpolates = quote === "`" ? "${" : fString ? "{" : undefined;
  let value = "";
  let dynamic = false;
  for (i++; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "\\") {
      value += text[i + 1] ?? "";
      i++;
    } else if (ch === quote) {
      const normalized = normalizeInterpolations(value);
      return { value: normalized.value, dynamic: dynamic || normalized.dynamic, end: i + 1 };
    } else if (ch === "\n" && quote !== "`") {
      return undefined;
    } else if (interpolates !== undefined && text.startsWith(interpolates, i)) {
      const close = text.indexOf("}", i);
      if (close === -1) return undefined;
      const expr = text.slice(i + interpolates.length, close);
      if (PARTITION_EXPR.test(expr)) value += "{partition}";
      else dynamic = true;
      i = close;
    } else {
      value += ch;
    }
  }
  return undefined;
}

/** A string literal with its start offset. */
export type LocatedLiteral = StringLiteral & { readonly start: number };

/** Every string literal in `text` (read as code), in order. Unclosed quotes are skipped. */
export function stringLiterals(text: string): LocatedLiteral[] {
  const out: LocatedLiteral[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch !== "'" && ch !== '"' && ch !== "`") continue;
    const prefixed = i > 0 && /[fF]/.test(text[i - 1] as string) && !/\w/.test(text[i - 2] ?? "");
    const start = prefixed ? i - 1 : i;
    const lit = readStringLiteral(text, start);
    if (!lit) continue;
    out.push({ ...lit, start });
    i = lit.end - 1;
  }
  return out;
}

/** One top-level argument of a call: its trimmed source text and offset. */
export interface CallArgument {
  readonly text: string;
  readonly offset: number;
}

/**
 * Split the arguments of the call whose `(` is at `open`, respecting nested brackets and
 * string literals. Returns `[]` when the parenthesis is not closed.
 */
export function callArguments(text: string, open: number): CallArgument[] {
  const args: CallArgument[] = [];
  let depth = 0;
  let start = open + 1;
  const push = (end: number): void => {
    const raw = text.slice(start, end);
    args.push({ text: raw.trim(), offset: start + raw.search(/\S|$/) });
  };
  for (let i = open; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "'" || ch === '"' || ch === "`") {
      const lit = readStringLiteral(text, i);
      if (!lit) return [];
      i = lit.end - 1;
    } else if (ch === "(" || ch === "[" || ch === "{") {
      depth++;
    } else if (ch === ")" || ch === "]" || ch === "}") {
      depth--;
      if (depth === 0) {
        if (text.slice(start, i).trim() !== "" || args.length > 0) push(i);
        return args;
      }
    } else if (ch === "," && depth === 1) {
      push(i);
      start = i + 1;
    }
  }
  return [];
}

/**
 * The offset just after the balanced parenthesis group opening at `open` (strings skipped),
 * or `undefined` when it is not closed.
 */
export function skipParens(text: string, open: number): number | undefined {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "'" || ch === '"') {
      const lit = readStringLiteral(text, i);
      if (lit) i = lit.end - 1;
    } else if (ch === "(") depth++;
    else if (ch === ")" && --depth === 0) return i + 1;
  }
  return undefined;
}
