/**
 * Schema history of materialized assets (seed 001 "Schema capture"): after each managed
 * write the table's output columns (names and types, in order) are compared with the last
 * captured version; a new version is recorded only when they differ (a column added,
 * dropped, retyped or reordered). Kept in one key-value record per asset, updated with
 * compare-and-set so concurrent writers of one table do not lose a version.
 */
import type { Store } from "../../store/types.js";

/** Key-value prefix of an asset's schema history (`<prefix><uri>`). */
const SCHEMA_PREFIX = "pipeline:schema:";

/** One output column. */
export interface SchemaColumn {
  readonly name: string;
  readonly type: string;
}

/** One captured schema version. */
export interface SchemaVersion {
  readonly version: number;
  readonly columns: readonly SchemaColumn[];
  /** The lake snapshot and run that first produced it. */
  readonly snapshot_id: number;
  readonly run: string;
  readonly at: number;
  /** Set when a rollback of the table brought back an older version's columns: that version. */
  readonly restores?: number;
}

/** Where a version comes from (its snapshot, run, time, and the version a rollback restores). */
type SchemaOrigin = Pick<SchemaVersion, "snapshot_id" | "run" | "at" | "restores">;

const same = (a: readonly SchemaColumn[], b: readonly SchemaColumn[]) =>
  a.length === b.length && a.every((c, i) => c.name === b[i]!.name && c.type === b[i]!.type);

/** The history with `columns` appended when they differ from the last version (pure); undefined when unchanged. */
export function nextSchemaHistory(
  history: readonly SchemaVersion[],
  columns: readonly SchemaColumn[],
  origin: SchemaOrigin,
): SchemaVersion[] | undefined {
  const last = history[history.length - 1];
  if (last && same(last.columns, columns)) return undefined;
  return [...history, { version: (last?.version ?? 0) + 1, columns: [...columns], ...origin }];
}

/** The version in effect at lake snapshot `snapshot`: the last one first produced at or before it (pure). */
export function schemaAt(history: readonly SchemaVersion[], snapshot: number): SchemaVersion | undefined {
  let found: SchemaVersion | undefined;
  for (const v of history) if (v.snapshot_id <= snapshot) found = v;
  return found;
}

/** The captured versions of an asset, oldest first. */
export async function schemaHistory(store: Store, uri: string): Promise<SchemaVersion[]> {
  const raw = await store.kvGet(`${SCHEMA_PREFIX}${uri}`);
  return raw ? (JSON.parse(raw) as SchemaVersion[]) : [];
}

/** Record `columns` as the asset's schema after a write (a new version only when changed). @returns the current version */
export async function captureSchema(
  store: Store,
  uri: string,
  columns: readonly SchemaColumn[],
  origin: SchemaOrigin,
): Promise<number> {
  const key = `${SCHEMA_PREFIX}${uri}`;
  for (;;) {
    const raw = await store.kvGet(key);
    const history = raw ? (JSON.parse(raw) as SchemaVersion[]) : [];
    const next = nextSchemaHistory(history, columns, origin);
    if (!next) return history[history.length - 1]!.version;
    if (await store.kvSwap(key, raw, JSON.stringify(next))) return next[next.length - 1]!.version;
  }
}
