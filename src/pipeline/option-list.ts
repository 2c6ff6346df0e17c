/**
 * Tokenising the `name="value"` option lists of annotation lines
 * (`// partitioned daily tz="Europe/Paris" format="%Y/%m/%d"`). Values may be double-quoted,
 * single-quoted or bare; quoted values may contain spaces.
 */

/** One token of an option list. */
export type OptionToken =
  /** `name=value`, with quotes removed from the value. */
  | { readonly type: "option"; readonly name: string; readonly value: string; readonly raw: string }
  /** A bare word such as `append` or `daily`. */
  | { readonly type: "word"; readonly raw: string }
  /** Something that could not be read, e.g. an unterminated quote. */
  | { readonly type: "malformed"; readonly raw: string; readonly reason: string };

function readQuoted(text: string, start: number, quote: string): { value: string; end: number } | undefined {
  const close = text.indexOf(quote, start + 1);
  if (close === -1) return undefined;
  return { value: text.slice(start + 1, close), end: close + 1 };
}

/**
 * Split an option list into tokens.
 *
 * @example tokenizeOptions('daily tz="America/New_York" start=2026-01-01')
 *   // [{ type: "word", raw: "daily" }, { type: "option", name: "tz", value: "America/New_York", … }, …]
 */
export function tokenizeOptions(text: string): OptionToken[] {
  const tokens: OptionToken[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
    if (i >= text.length) break;
    const startOfToken = i;
    while (i < text.length && !/[\s=]/.test(text[i] as string)) i++;
    const name = text.slice(startOfToken, i);
    if (text[i] !== "=") {
      tokens.push({ type: "word", raw: name });
      continue;
    }
    i++;
    const quote = text[i];
    if (quote === '"' || quote === "'") {
      const quoted = readQuoted(text, i, quote);
      if (!quoted) {
        tokens.push({ type: "malformed", raw: text.slice(startOfToken), reason: `unterminated ${quote} quote` });
        break;
      }
      i = quoted.end;
      const next = text[i];
      if (next !== undefined && !/\s/.test(next)) {
        while (i < text.length && !/\s/.test(text[i] as string)) i++;
        tokens.push({
          type: "malformed",
          raw: text.slice(startOfToken, i),
          reason: "text right after the closing quote",
        });
        continue;
      }
      const raw = text.slice(startOfToken, i);
      if (name === "") tokens.push({ type: "malformed", raw, reason: "an option needs a name before =" });
      else tokens.push({ type: "option", name, value: quoted.value, raw });
      continue;
    }
    const valueStart = i;
    while (i < text.length && !/\s/.test(text[i] as string)) i++;
    const value = text.slice(valueStart, i);
    const raw = text.slice(startOfToken, i);
    if (name === "") tokens.push({ type: "malformed", raw, reason: "an option needs a name before =" });
    else if (/["']/.test(value)) tokens.push({ type: "malformed", raw, reason: "a quote in the middle of a value" });
    else tokens.push({ type: "option", name, value, raw });
  }
  return tokens;
}
