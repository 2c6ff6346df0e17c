/**
 * Script languages and their comment prefixes. Annotations are comment lines; the
 * parser accepts any of the three prefixes (`//`, `#`, `--`) in any language, as the seed
 * says, and uses the language only for language-specific rules (e.g. `// materialize`
 * is DuckDB SQL only) and for asset detection.
 */

/** Languages the pipeline layer knows about. `unknown` when neither path nor language is given. */
export type ScriptLanguage = "typescript" | "javascript" | "python" | "bash" | "powershell" | "sql" | "unknown";

/** The three accepted annotation comment prefixes. */
export type CommentPrefix = "//" | "#" | "--";

/** All accepted prefixes, longest first is irrelevant as they share no characters. */
const COMMENT_PREFIXES: readonly CommentPrefix[] = ["//", "#", "--"];

const BY_EXTENSION: Readonly<Record<string, ScriptLanguage>> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "typescript",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascript",
  py: "python",
  sh: "bash",
  bash: "bash",
  ps1: "powershell",
  sql: "sql",
};

const PREFIX_OF: Readonly<Record<ScriptLanguage, CommentPrefix | undefined>> = {
  typescript: "//",
  javascript: "//",
  python: "#",
  bash: "#",
  powershell: "#",
  sql: "--",
  unknown: undefined,
};

/**
 * The language of a script from its file name's extension (`.ts`, `.js`, `.py`, `.sh`,
 * `.sql`, …). Returns `"unknown"` for other or missing extensions.
 */
export function languageFromPath(path: string): ScriptLanguage {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  if (dot <= 0) return "unknown";
  return BY_EXTENSION[base.slice(dot + 1).toLowerCase()] ?? "unknown";
}

/** The native comment prefix of a language (`undefined` for `unknown`). */
export function commentPrefixOf(language: ScriptLanguage): CommentPrefix | undefined {
  return PREFIX_OF[language];
}

/**
 * The prefix a hint writes an annotation line with: the script language's own comment prefix
 * (`# on schedule` in Python or Bash, `-- column …` in SQL), `//` when the language is unknown.
 * A hint followed literally must leave the script valid (`//` is floor division in Python).
 */
export function hintPrefix(language: ScriptLanguage): CommentPrefix {
  return commentPrefixOf(language) ?? "//";
}

/**
 * Annotation `text` as a hint writes it for the scripts at `paths`: a line in their comment
 * syntax when they share one (`# partitioned daily` for Python and Bash scripts), else the bare
 * annotation (`partitioned daily`), which each script writes in its own.
 */
export function annotationHint(paths: readonly string[], text: string): string {
  const prefixes = new Set(paths.map((p) => hintPrefix(languageFromPath(p))));
  return prefixes.size === 1 ? `${[...prefixes][0]!} ${text}` : text;
}

/**
 * Annotation `text` in every language's comment syntax, for a hint about no one script:
 * `` `// pipeline` (`# pipeline` in Python, Bash or PowerShell, `-- pipeline` in SQL) ``.
 */
export function everySyntaxHint(text: string): string {
  return `\`// ${text}\` (\`# ${text}\` in Python, Bash or PowerShell, \`-- ${text}\` in SQL)`;
}

/** The language implied by a comment prefix alone (`--` → SQL, `#` → Python, `//` → TypeScript). */
export function languageFromPrefix(prefix: CommentPrefix): ScriptLanguage {
  return prefix === "--" ? "sql" : prefix === "#" ? "python" : "typescript";
}

/**
 * If `line` is a comment line with one of the accepted prefixes, return its body (the text
 * after the prefix, trimmed) and the prefix used; otherwise `undefined`.
 *
 * @example commentBody("  // on s3://a/b") // { prefix: "//", body: "on s3://a/b" }
 */
export function commentBody(line: string): { prefix: CommentPrefix; body: string } | undefined {
  const trimmed = line.trimStart();
  for (const prefix of COMMENT_PREFIXES) {
    if (trimmed.startsWith(prefix)) return { prefix, body: trimmed.slice(prefix.length).trim() };
  }
  return undefined;
}
