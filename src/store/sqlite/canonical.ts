/**
 * Compares two JSON texts as values, ignoring key order and whitespace, so that
 * `{"a":1,"b":2}` and `{"b":2,"a":1}` count as the same payload for deduplication.
 */
export function sameJson(a: string | null, b: string | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  return canonical(JSON.parse(a)) === canonical(JSON.parse(b));
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const keys = Object.keys(v as object).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}
