/**
 * The instants inside a server-written sentence (pure): a pipeline decision's reason says
 * "the run starts at 2026-05-16T10:00:00.000Z", and the UI shows that time as it shows every
 * other (`timestamp()`), so the sentence is split around the ISO 8601 UTC times it contains.
 */

/** A piece of the text: plain words, or an instant (its ISO text as written). */
export type TextPart = { text: string } | { iso: string };

/** ISO 8601 UTC times as `Date#toISOString` writes them (milliseconds optional). */
const ISO_UTC = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z/g;

/**
 * Splits `text` around the ISO UTC times in it; dates without a time (a partition such as
 * `2026-05-16`) stay text.
 * @example splitTimes("starts at 2026-05-16T10:00:00.000Z") // [{ text: "starts at " }, { iso: "2026-05-16T10:00:00.000Z" }]
 */
export function splitTimes(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let last = 0;
  for (const m of text.matchAll(ISO_UTC)) {
    if (Number.isNaN(Date.parse(m[0]))) continue;
    if (m.index > last) parts.push({ text: text.slice(last, m.index) });
    parts.push({ iso: m[0] });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}
