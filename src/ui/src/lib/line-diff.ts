/**
 * A line diff of two texts for the release page (pure): the longest common subsequence of
 * lines, as rows kept / deleted / added with their line numbers on each side. Texts too large
 * for the quadratic table are shown as all deleted then all added.
 */

/** One row of a diff. */
export interface DiffRow {
  kind: "same" | "del" | "add";
  text: string;
  /** Line number in the old text (null for an added line). */
  oldNo: number | null;
  /** Line number in the new text (null for a deleted line). */
  newNo: number | null;
}

/** Largest `old lines × new lines` diffed line by line. */
const MAX_CELLS = 4_000_000;

function lines(text: string | null): string[] {
  if (text === null || text === "") return [];
  const all = text.split("\n");
  if (all[all.length - 1] === "") all.pop();
  return all;
}

/** Diffs `before` against `after` (null: the file is absent on that side). */
export function lineDiff(before: string | null, after: string | null): DiffRow[] {
  const a = lines(before);
  const b = lines(after);
  if (a.length * b.length > MAX_CELLS)
    return [
      ...a.map((text, i): DiffRow => ({ kind: "del", text, oldNo: i + 1, newNo: null })),
      ...b.map((text, j): DiffRow => ({ kind: "add", text, oldNo: null, newNo: j + 1 })),
    ];
  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i * width + j] =
        a[i] === b[j]
          ? lcs[(i + 1) * width + j + 1]! + 1
          : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
  const rows: DiffRow[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      rows.push({ kind: "same", text: a[i]!, oldNo: i + 1, newNo: j + 1 });
      i++;
      j++;
    } else if (i < a.length && (j === b.length || lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!)) {
      rows.push({ kind: "del", text: a[i]!, oldNo: i + 1, newNo: null });
      i++;
    } else {
      rows.push({ kind: "add", text: b[j]!, oldNo: null, newNo: j + 1 });
      j++;
    }
  }
  return rows;
}
