/**
 * Named (prepared) statements for the hot path: Postgres parses and plans a named
 * statement once per connection and reuses it, where an unnamed one is parsed on
 * every call. The name is derived from the text, so one text is one statement.
 */
import { createHash } from "node:crypto";
import type pg from "pg";
import { withArrayLiterals } from "./array-literal.js";

const names = new Map<string, string>();

/**
 * A query config that runs `text` as a prepared statement named after it; array parameters
 * go as array literals built at once (`array-literal.ts`).
 */
export function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let name = names.get(text);
  if (!name) {
    name = `sluice_${createHash("sha1").update(text).digest("hex").slice(0, 16)}`;
    names.set(text, name);
  }
  return { name, text, values: withArrayLiterals(values) };
}
