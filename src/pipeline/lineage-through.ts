/**
 * Column lineage followed through the temp tables of a script's setup statements: an output
 * that reads `staging.amount`, where `staging` is a `CREATE TEMP TABLE staging AS SELECT …` of
 * the same script, reads what `staging.amount` was made from. A temp table is not an asset and
 * lives for one run, so lineage that stops at it says nothing an asset graph can show. Pure.
 *
 * Rules, per output column:
 * - a source of a table that is not one of the temp tables stays as it is;
 * - a source `t.c` of a temp table `t` is replaced by the sources of `t`'s output `c` (a column
 *   the temp table's lineage does not list stays `t.c`);
 * - the output stays a passthrough only when every column it passes through is one;
 * - when a temp column it reads is unknown, the output is unknown too (no sources, no
 *   passthrough), as the walker marks an output that reads an ambiguous column.
 */
import type { InferredColumn, LineageResult, LineageSource } from "./column-lineage.js";

/**
 * `result` with its temp-table sources replaced by the temp tables' own sources. `via` maps a
 * temp table's name, as sources name it, to its lineage, already followed through the temp tables
 * made before it (so a chain of temp tables resolves in one step).
 */
export function lineageThrough(result: LineageResult, via: ReadonlyMap<string, LineageResult>): LineageResult {
  if (via.size === 0) return result;
  return { ...result, columns: result.columns.map((c) => columnThrough(c, via)) };
}

function columnThrough(c: InferredColumn, via: ReadonlyMap<string, LineageResult>): InferredColumn {
  if (c.unknown) return c;
  const sources: LineageSource[] = [];
  let passthrough = c.passthrough;
  for (const s of c.sources) {
    const temp = via.get(s.table)?.columns.find((t) => t.output === s.column);
    if (!temp) {
      push(sources, s);
      continue;
    }
    if (temp.unknown) return { output: c.output, sources: [], passthrough: false, unknown: true };
    passthrough &&= temp.passthrough;
    for (const t of temp.sources) push(sources, t);
  }
  return { output: c.output, sources, passthrough: passthrough && sources.length === 1 };
}

function push(into: LineageSource[], s: LineageSource): void {
  if (!into.some((x) => x.table === s.table && x.column === s.column)) into.push(s);
}
