/** Printing of benchmark figures: each beside its target and the machine's raw limit. */

/** One measured figure. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** e.g. ">= 3x raw" */
  target?: string;
  /** Whether the target is met (undefined when there is none). */
  met?: boolean;
  note?: string;
}

/** Formats a number with thousands separators and sensible decimals. */
export function fmt(n: number): string {
  return n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(n >= 10 ? 1 : 2);
}

/** Prints figures as an aligned table. */
export function printFigures(title: string, figures: Figure[]): void {
  console.log(`\n${title}`);
  const rows = figures.map((f) => [
    f.name,
    `${fmt(f.value)} ${f.unit}`,
    f.target ? `target ${f.target}` : "",
    f.met === undefined ? "" : f.met ? "met" : "NOT MET",
    f.note ?? "",
  ]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows)
    console.log(
      `  ${r
        .map((c, i) => c.padEnd(widths[i]!))
        .join("  ")
        .trimEnd()}`,
    );
}

/** The value at quantile `q` (0..1) of sorted numbers. */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}
