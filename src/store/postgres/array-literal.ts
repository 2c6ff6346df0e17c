/**
 * Array parameters as Postgres array literals, built by `JSON.stringify`: `pg` turns a JS
 * array into a literal element by element (`prepareValue`, two regular-expression replaces
 * per string), which for the 13 columns of a checkpoint batch of 5,000 steps cost a cold
 * worker tens of milliseconds. JSON's escapes of `"` and `\` are what an array literal's
 * quoted element needs, and JSON's bare `null` reads as NULL; JSON escapes nothing else in
 * strings without control characters or lone surrogates, so only such arrays take this path
 * (every other array is left to `pg`, unchanged).
 */

/**
 * An escape `JSON.stringify` writes that an array literal would read differently: `\b`, `\f`, `\n`,
 * `\r`, `\t` or `\uXXXX` (control characters, lone surrogates), i.e. one of those letters after an
 * odd run of backslashes (an even run is escaped backslashes).
 */
const OTHER_ESCAPE = /(?<!\\)(?:\\\\)*\\[bfnrtu]/;

/**
 * The array literal of `values` (e.g. `{"a",null,"b \"c\""}`, `{1,2}`), or null when an
 * element is not a string, finite number, boolean, null or undefined, or a string holds a
 * control character or a lone surrogate: then `pg`'s own conversion applies.
 */
export function arrayLiteral(values: readonly unknown[]): string | null {
  for (const v of values) {
    if (v === null || v === undefined || typeof v === "string" || typeof v === "boolean") continue;
    if (typeof v !== "number" || !Number.isFinite(v)) return null;
  }
  const json = JSON.stringify(values);
  if (json.includes("\\") && OTHER_ESCAPE.test(json)) return null;
  return `{${json.slice(1, -1)}}`;
}

/** `values` with each array parameter as its {@link arrayLiteral} where it has one. */
export function withArrayLiterals(values: unknown[]): unknown[] {
  let out: unknown[] | null = null;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Array.isArray(v)) continue;
    const literal = arrayLiteral(v);
    if (literal === null) continue;
    out ??= values.slice();
    out[i] = literal;
  }
  return out ?? values;
}
