/**
 * The shape check of a managed `// materialize` script: setup statements (ATTACH, SET,
 * CREATE TEMP …) followed by exactly one trailing SELECT. Best effort over the SQL text:
 * comments and quoted strings are skipped when splitting statements; no SQL AST.
 */

/**
 * The seed writes SQL scripts' annotations with `//` lines, which DuckDB does not read as
 * comments: every line whose first non-blank characters are `//` becomes a `--` comment
 * (same line count, so line numbers stay right). A `//` line inside a multi-line string
 * literal would be changed too; SQL scripts do not start string lines that way in practice.
 */
export function slashCommentsToSql(sql: string): string {
  return sql.replace(/^([ \t]*)\/\//gm, "$1--");
}

/** One SQL statement and the 1-based line it starts on. */
export interface SqlStatement {
  readonly text: string;
  readonly line: number;
}

/**
 * Split SQL into statements on `;`, skipping `--` and `/* *\/` comments and text inside
 * single quotes, double quotes and `$$` blocks. Comment text is dropped from the statements.
 */
export function splitSqlStatements(sql: string): SqlStatement[] {
  const out: SqlStatement[] = [];
  let current = "";
  let line = 1;
  let startLine = 0;
  const push = (): void => {
    const text = current.trim();
    if (text !== "") out.push({ text, line: startLine });
    current = "";
    startLine = 0;
  };
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i] as string;
    const two = sql.slice(i, i + 2);
    let chunk = ch;
    if (two === "--" || two === "/*") {
      const end = two === "--" ? sql.indexOf("\n", i) : sql.indexOf("*/", i + 2);
      const stop = end === -1 ? sql.length : two === "--" ? end : end + 2;
      line += (sql.slice(i, stop).match(/\n/g) ?? []).length;
      i = stop - 1;
      current += " ";
      continue;
    }
    if (ch === "'" || ch === '"' || two === "$$") {
      const close = two === "$$" ? "$$" : ch;
      const end = sql.indexOf(close, i + close.length);
      const stop = end === -1 ? sql.length : end + close.length;
      chunk = sql.slice(i, stop);
      i = stop - 1;
    } else if (ch === ";") {
      push();
      continue;
    }
    if (startLine === 0 && chunk.trim() !== "") startLine = line;
    current += chunk;
    line += (chunk.match(/\n/g) ?? []).length;
  }
  push();
  return out;
}

const SETUP = [
  /^attach\b/i,
  /^detach\b/i,
  /^set\b/i,
  /^reset\b/i,
  /^install\b/i,
  /^load\b/i,
  /^use\b/i,
  /^pragma\b/i,
  /^create\s+(or\s+replace\s+)?(temp|temporary)\b/i,
  /^create\s+(or\s+replace\s+)?((persistent|temporary)\s+)?secret\b/i,
];
const QUERY = /^(select|with|from|values|\()/i;

/** A problem found by {@link checkMaterializeBody}. */
export interface BodyProblem {
  readonly line: number;
  readonly message: string;
}

/**
 * Check that a managed materialize script is setup statements plus one trailing SELECT.
 * Annotation lines are `--` comments, so the whole script source can be passed as is.
 *
 * @returns the first problem, or `undefined` when the shape is right.
 */
export function checkMaterializeBody(sql: string): BodyProblem | undefined {
  const statements = splitSqlStatements(slashCommentsToSql(sql));
  const last = statements[statements.length - 1];
  if (!last) {
    return {
      line: 1,
      message:
        "a managed -- materialize script needs a trailing SELECT for the slice; add one, or use `-- materialize manual` if the script writes the table itself",
    };
  }
  for (const statement of statements.slice(0, -1)) {
    if (!SETUP.some((re) => re.test(statement.text))) {
      const word = statement.text.split(/\s+/, 1)[0] ?? "";
      return {
        line: statement.line,
        message: `a managed -- materialize script may only have setup statements (ATTACH, SET, INSTALL, LOAD, USE, PRAGMA, CREATE TEMP …) before its one trailing SELECT, but this statement starts with ${word.toUpperCase()}; move it out, or use \`-- materialize manual\` and write the table yourself`,
      };
    }
  }
  if (!QUERY.test(last.text)) {
    const word = last.text.split(/\s+/, 1)[0] ?? "";
    return {
      line: last.line,
      message: `a managed -- materialize script must end with one SELECT (the slice Sluice writes), but its last statement starts with ${word.toUpperCase()}; end it with the SELECT, or use \`-- materialize manual\``,
    };
  }
  return undefined;
}
