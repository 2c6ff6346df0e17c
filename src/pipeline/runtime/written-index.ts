/**
 * The per-asset write index of `sluice pipeline status` and the UI: one key-value record per
 * written slice, `pipeline:written:<uri> <partition>` → `{run, script, at, runPartition?}`, the
 * partition empty for a whole-asset write, so the latest write of a slice replaces the one
 * before. Which slice a write wrote is decided here ({@link writtenSlice}), pure.
 */
import { matchAssetUri } from "../asset-match.js";
import type { MemberScript } from "./catalog.js";

/** Prefix of the per-asset write index in the store's key-value records. */
export const WRITTEN_PREFIX = "pipeline:written:";

/** The index key of a write of `uri`'s slice `partition` (`<uri> <partition>`; URIs never contain spaces). */
export function writtenKey(uri: string, partition: string | undefined): string {
  return `${WRITTEN_PREFIX}${uri} ${partition ?? ""}`;
}

/** An index record as stored. */
export interface WrittenEntry {
  readonly run: string;
  readonly script: string;
  readonly at: number;
  /**
   * The partition of the run that wrote it, when it differs from the slice's (a whole-asset
   * write by a run a partitioned chain started): the run's done mark is kept under it.
   */
  readonly runPartition?: string;
}

/**
 * The slice of `uri` a run of `member` with partition `runPartition` wrote: the run's partition
 * when the script is `// partitioned`, or when `uri` fills a `{partition}` path the script writes
 * (the partition that path takes); otherwise the whole asset (`undefined`). So a step without
 * `// partitioned` that a partitioned chain ran (its run carries the chain's partition) writes
 * its plain assets whole, as its runs replace them. A lake write's own slice (what the write
 * reported) is given by the caller instead.
 */
export function writtenSlice(
  member: Pick<MemberScript, "analyzed">,
  runPartition: string | undefined,
  uri: string,
): string | undefined {
  if (runPartition === undefined || member.analyzed.annotations.partitioned) return runPartition;
  for (const w of member.analyzed.assets.writes) {
    if (!w.asset.partitioned) continue;
    const match = matchAssetUri(w.asset, uri);
    if (match?.partition !== undefined) return match.partition;
  }
  return undefined;
}

/** A parsed index record: its asset, slice (null for the whole asset) and entry. */
export function parseWritten(key: string, value: string): { uri: string; partition: string | null } & WrittenEntry {
  const rest = key.slice(WRITTEN_PREFIX.length);
  const space = rest.lastIndexOf(" ");
  const v = JSON.parse(value) as WrittenEntry;
  return {
    uri: rest.slice(0, space),
    partition: rest.slice(space + 1) || null,
    run: v.run,
    script: v.script,
    at: v.at,
    ...(v.runPartition !== undefined && { runPartition: v.runPartition }),
  };
}
