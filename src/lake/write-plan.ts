/**
 * Deciding a write's columns (pure): which columns a slice is written with, and, for a
 * whole-table replace, how the table's columns change (DuckLake keeps a column's id across
 * versions; a new column or a retyped one gets a new id, a moved one a new version; a column
 * other writes widen by a type promotion a new version too).
 */
import { LakeError } from "./errors.js";
import { LossyCastError, lossyColumns } from "./exact-cast.js";
import { isPromotion } from "./type-promotion.js";
import type { LakeColumn } from "./types.js";

/** A column of the slice as DuckDB describes it, with its DuckLake type. */
export interface SourceColumn {
  readonly name: string;
  readonly lakeType: string;
}

/** A column of the table after the write. */
export interface TargetColumn {
  readonly columnId: number;
  readonly name: string;
  readonly lakeType: string;
  readonly order: number;
  /** The slice has this column (else it is written as NULL). */
  readonly inSource: boolean;
}

/** The column changes of a write. */
export interface ColumnPlan {
  readonly columns: readonly TargetColumn[];
  /** Column ids whose current version ends at the new snapshot. */
  readonly ended: readonly number[];
  /** Column versions that begin at the new snapshot. */
  readonly added: readonly TargetColumn[];
  /** Highest column id used (the table's next id is this + 1). */
  readonly maxColumnId: number;
}

/** The columns of a new table: ids 1…n in the slice's order. */
export function planNewTable(source: readonly SourceColumn[]): ColumnPlan {
  checkNames(source);
  const columns = source.map((c, i) => ({
    columnId: i + 1,
    name: c.name,
    lakeType: c.lakeType,
    order: i + 1,
    inSource: true,
  }));
  return { columns, ended: [], added: columns, maxColumnId: columns.length };
}

function checkNames(source: readonly SourceColumn[]): void {
  if (source.length === 0)
    throw new LakeError("LAKE_WRITE_INVALID", "the SELECT returns no columns; a lake table needs at least one");
  const seen = new Set<string>();
  for (const c of source) {
    if (seen.has(c.name))
      throw new LakeError(
        "LAKE_WRITE_INVALID",
        `the SELECT returns two columns named ${JSON.stringify(c.name)}; give each output column its own name (AS …)`,
      );
    seen.add(c.name);
  }
}

/**
 * Append, merge and partition replace keep the table's columns: the slice may leave some
 * out (written as NULL) but may not bring new ones. A slice column of another type is written
 * cast to the column's type when that keeps every value (`exact-cast.ts`); when instead the
 * slice's type is one DuckLake allows the column to be promoted to (`type-promotion.ts`:
 * INTEGER → BIGINT, FLOAT → DOUBLE, …) the column is widened: a new version with the same id
 * and the slice's type. Any other type (narrowing, or a change DuckLake does not allow) is
 * refused.
 * @throws LakeError for new columns, LossyCastError for a cast that could change values
 */
export function planKeepColumns(
  current: readonly LakeColumn[],
  source: readonly SourceColumn[],
  table: string,
): ColumnPlan {
  checkNames(source);
  const names = new Set(current.map((c) => c.name));
  const extra = source.filter((c) => !names.has(c.name)).map((c) => c.name);
  if (extra.length) {
    throw new LakeError(
      "LAKE_WRITE_INVALID",
      `the slice has column(s) ${extra.join(", ")} that table ${table} does not have; only a whole-table replace (no append, key= or partition) changes a table's columns, so drop them from the SELECT or rebuild the whole table`,
    );
  }
  const lossy = lossyColumns(current, source);
  const promoted = new Map(lossy.filter((l) => isPromotion(l.to, l.from)).map((l) => [l.name, l.from] as const));
  const refused = lossy.filter((l) => !promoted.has(l.name));
  if (refused.length) throw new LossyCastError(table, refused);
  const inSource = new Set(source.map((c) => c.name));
  const columns = current.map((c) => ({
    columnId: c.columnId,
    name: c.name,
    lakeType: promoted.get(c.name) ?? c.type,
    order: c.order,
    inSource: inSource.has(c.name),
  }));
  const added = columns.filter((c) => promoted.has(c.name));
  return {
    columns,
    ended: added.map((c) => c.columnId),
    added,
    maxColumnId: Math.max(0, ...current.map((c) => c.columnId)),
  };
}

/**
 * A whole-table replace follows the slice's columns: same name and type keep the column id
 * (a new version only when its position moved), a new name or a new type gets a new id,
 * columns not in the slice end.
 */
export function planReplaceColumns(
  current: readonly LakeColumn[],
  source: readonly SourceColumn[],
  maxColumnIdEver: number,
): ColumnPlan {
  checkNames(source);
  let next = maxColumnIdEver;
  const columns: TargetColumn[] = [];
  const ended: number[] = [];
  const added: TargetColumn[] = [];
  source.forEach((s, i) => {
    const order = i + 1;
    const same = current.find((c) => c.name === s.name && c.type === s.lakeType);
    if (same) {
      const col = { columnId: same.columnId, name: s.name, lakeType: s.lakeType, order, inSource: true };
      if (same.order !== order) {
        ended.push(same.columnId);
        added.push(col);
      }
      columns.push(col);
      return;
    }
    const col = { columnId: ++next, name: s.name, lakeType: s.lakeType, order, inSource: true };
    columns.push(col);
    added.push(col);
  });
  const kept = new Set(columns.map((c) => c.columnId));
  for (const c of current) if (!kept.has(c.columnId)) ended.push(c.columnId);
  return { columns, ended, added, maxColumnId: next };
}
