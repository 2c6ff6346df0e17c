/**
 * Lexing just enough SQL to find string literals: `'…'` with `''` escapes, skipping
 * `-- …` and `/* … *\/` comments and `"…"` identifiers.
 */

/** A string literal in SQL text. */
export interface SqlLiteral {
  /** Offset of the opening quote. */
  readonly start: number;
  /** Offset just after the closing quote. */
  readonly end: number;
  /** The value, with `''` unescaped. */
  readonly value: string;
}

/** Every string literal of `sql`, in order. */
export function sqlLiterals(sql: string): SqlLiteral[] {
  const out: SqlLiteral[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "-" && sql[i + 1] === "-") {
      const nl = sql.indexOf("\n", i);
      i = nl < 0 ? sql.length : nl + 1;
    } else if (c === "/" && sql[i + 1] === "*") {
      const close = sql.indexOf("*/", i + 2);
      i = close < 0 ? sql.length : close + 2;
    } else if (c === '"') {
      const close = sql.indexOf('"', i + 1);
      i = close < 0 ? sql.length : close + 1;
    } else if (c === "'") {
      let j = i + 1;
      let value = "";
      for (; j < sql.length; j++) {
        if (sql[j] === "'") {
          if (sql[j + 1] === "'") {
            value += "'";
            j++;
            continue;
          }
          break;
        }
        value += sql[j];
      }
      out.push({ start: i, end: Math.min(j + 1, sql.length), value });
      i = j + 1;
    } else i++;
  }
  return out;
}

/** `sql` with some literals replaced by new SQL text (each `(literal) => text | undefined`). */
export function replaceLiterals(sql: string, replace: (lit: SqlLiteral) => string | undefined): string {
  let out = "";
  let at = 0;
  for (const lit of sqlLiterals(sql)) {
    const text = replace(lit);
    if (text === undefined) continue;
    out += sql.slice(at, lit.start) + text;
    at = lit.end;
  }
  return out + sql.slice(at);
}
