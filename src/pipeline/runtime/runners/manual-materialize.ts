/**
 * `-- materialize manual ducklake://<lake>/<table>`: the script writes the table itself (seed
 * 001's track-only escape hatch), so Sluice cannot know the write happened from the script
 * succeeding. The write is recorded (and the cascade fires) only when the table did change
 * while the run ran: a snapshot after the one current at the run's start created or changed
 * it. Otherwise the run says so and nothing is recorded as written.
 */
import type { AssetHost } from "../../../assets/host.js";
import { changesTouchTable } from "../../../lake/changes.js";
import { projectLakeExists, withProjectLake } from "../../../lake/project-lake.js";
import { qualifiedName } from "../../../lake/reader.js";
import type { MaterializeAnnotation } from "../../annotation-types.js";

/** A manual target as it was before the run. */
export interface ManualMark {
  readonly uri: string;
  readonly lake: string;
  /** `schema.table`. */
  readonly table: string;
  /** The lake's latest snapshot at the start (undefined: the lake did not exist). */
  readonly before: number | undefined;
}

/** The lake's latest snapshot before a manual run (creating nothing). */
export async function markManualTarget(host: AssetHost, target: MaterializeAnnotation["target"]): Promise<ManualMark> {
  const [lake, table] = target.path.split("/") as [string, string];
  const mark = { uri: target.uri, lake, table: qualifiedName(table) };
  if (!(await projectLakeExists(host, lake))) return { ...mark, before: undefined };
  return { ...mark, before: await withProjectLake(host, lake, async (l) => (await l.reader.snapshot()).snapshotId) };
}

/** Whether the marked table was created or changed by a snapshot made since the mark. */
export async function manualTargetChanged(host: AssetHost, mark: ManualMark): Promise<boolean> {
  if (!(await projectLakeExists(host, mark.lake))) return false;
  return withProjectLake(host, mark.lake, async (l) => {
    const latest = (await l.reader.snapshot()).snapshotId;
    if (mark.before !== undefined && latest === mark.before) return false;
    const table = await l.reader.findTable(mark.table, latest);
    const since = (await l.reader.snapshots()).filter((s) => mark.before === undefined || s.snapshotId > mark.before);
    return since.some((s) => changesTouchTable(s.changes, mark.table, table?.table.tableId));
  });
}
