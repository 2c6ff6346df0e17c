/**
 * The output names of a SELECT that its text alone gives (pure, lexical, no SQL AST): the
 * top-level select list of the first top-level SELECT (a set operation takes its names from
 * it), split on top-level commas, each item named when it says so (`… AS name`) or is a
 * plain column reference (`t.name`, `name`). Other items (`*`, expressions without an alias,
 * implicit aliases) are left out: what this returns is certain, not complete.
 */

const IDENT = String.raw`(?:[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")+")`;
const ALIASED = new RegExp(String.raw`\sAS\s+(${IDENT})$`, "i");
const COLUMN_REF = new RegExp(String.raw`^(?:${IDENT}\s*\.\s*)*(${IDENT})$`);
const LIST_END = /^(from|where|group|having|window|qualify|order|limit|offset|union|except|intersect)$/i;
const KEYWORDS = /^(distinct|all|select|from|where|case|when|then|else|end|not|null|true|false|and|or)$/i;

/** A piece of the statement at top level: a word, a quoted or parenthesised chunk, or one other character. */
interface Token {
  readonly text: string;
  readonly word: boolean;
}

function tokens(sql: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < sql.length;) {
    const ch = sql[i]!;
    if (ch === "'" || ch === '"') {
      let j = i + 1;
      while (j < sql.length && !(sql[j] === ch && sql[j + 1] !== ch)) j += sql[j] === ch ? 2 : 1;
      out.push({ text: sql.slice(i, j + 1), word: false });
      i = j + 1;
    } else if (ch === "(") {
      let depth = 0;
      let j = i;
      for (; j < sql.length; j++) {
        const c = sql[j]!;
        if (c === "'" || c === '"') {
          const close = sql.indexOf(c, j + 1);
          j = close === -1 ? sql.length : close;
        } else if (c === "(") depth++;
        else if (c === ")" && --depth === 0) break;
      }
      out.push({ text: sql.slice(i, j + 1), word: false });
      i = j + 1;
    } else if (/[A-Za-z_]/.test(ch)) {
      const m = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i))!;
      out.push({ text: m[0], word: true });
      i += m[0].length;
    } else {
      out.push({ text: ch, word: false });
      i++;
    }
  }
  return out;
}

function unquote(name: string): string {
  return name.startsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name;
}

/** The name an item of a select list gives its column, when its text says it for certain. */
function itemName(item: string): string | undefined {
  const text = item.trim();
  const aliased = ALIASED.exec(text);
  if (aliased) return unquote(aliased[1]!);
  const ref = COLUMN_REF.exec(text);
  if (ref && !KEYWORDS.test(ref[1]!)) return unquote(ref[1]!);
  return undefined;
}

/**
 * The output names of `select` (one statement, comments removed) known from its text, in
 * order; empty when it has no top-level SELECT (`FROM t`, `VALUES`).
 */
export function knownOutputNames(select: string): string[] {
  const all = tokens(select);
  const start = all.findIndex((t) => t.word && t.text.toLowerCase() === "select");
  if (start === -1) return [];
  /** The index of the first token at or after `j` that is not blank. */
  const skipBlank = (j: number): number => {
    while (j < all.length && /^\s$/.test(all[j]!.text)) j++;
    return j;
  };
  let i = skipBlank(start + 1);
  if (all[i]?.word && /^(distinct|all)$/i.test(all[i]!.text)) {
    i = skipBlank(i + 1);
    // DISTINCT ON (…): the parenthesised chunk is one token
    if (all[i]?.word && all[i]!.text.toLowerCase() === "on") i = skipBlank(i + 1) + 1;
  }
  const items: string[] = [];
  let current = "";
  for (; i < all.length; i++) {
    const t = all[i]!;
    if (t.word && LIST_END.test(t.text)) break;
    if (t.text === ",") {
      items.push(current);
      current = "";
    } else current += t.text;
  }
  items.push(current);
  return items.map(itemName).filter((n): n is string => n !== undefined);
}
