/**
 * The live state of a folder's pipeline, for `sluice pipeline status` and the web UI:
 * each script's last run, freshness and triggers; open `trigger all` joins and debounce
 * windows; the partitions written per asset; recent dispatch decisions.
 */
import { decodeValue } from "../../core/serde.js";
import type { RunStatus, Store } from "../../store/types.js";
import { matchAssetUri } from "../asset-match.js";
import type { PipelineFolder } from "./catalog.js";
import { readDecisions, type DecisionOutcome, type DispatchDecision } from "./decisions.js";
import { listDebounces } from "./debounce.js";
import { freshnessOf, type FreshnessState } from "./freshness.js";
import { listJoins } from "./join.js";
import { lineageLines, lineageOf } from "./lineage-record.js";
import { isLakeTableUri } from "./graph-lineage.js";
import { splitPayload } from "./meta.js";
import { triggerOf } from "./partition.js";
import { orderedMembers, triggerViews, type TriggerView } from "./render.js";
import { parseWritten, WRITTEN_PREFIX } from "./written-index.js";

/** A script's state. */
interface ScriptStatus {
  readonly path: string;
  readonly name: string;
  /** Why the script is not loaded (null when it is): the rest of its folder still runs. */
  readonly error: string | null;
  readonly lastRun: {
    id: string;
    status: RunStatus;
    trigger: string;
    partition: string | null;
    createdAt: number;
    finishedAt: number | null;
    error: string | null;
  } | null;
  readonly freshness: FreshnessState | null;
  readonly triggers: readonly TriggerView[];
}

/** A partition written to an asset (`partition` null: the whole asset, its latest write). */
interface WrittenPartition {
  readonly partition: string | null;
  readonly uri: string;
  readonly run: string;
  readonly script: string;
  readonly at: number;
}

/** The state of one folder's pipeline. */
export interface PipelineStatus {
  readonly folder: string;
  readonly ok: boolean;
  readonly scripts: readonly ScriptStatus[];
  readonly joins: ReadonlyArray<{
    script: string;
    partition: string;
    generation: number;
    have: string[];
    missing: string[];
  }>;
  readonly debounces: ReadonlyArray<{
    script: string;
    partition: string;
    window: number;
    open: boolean;
    until: number;
    writes: number;
    run: string;
  }>;
  /** Each asset's writes; a materialized lake table also its recorded column lineage (`output ← sources` lines). */
  readonly assets: ReadonlyArray<{ uri: string; partitions: WrittenPartition[]; columns?: readonly string[] }>;
  readonly decisions: readonly DispatchDecision[];
}

async function lastRun(store: Store, name: string): Promise<ScriptStatus["lastRun"]> {
  const [run] = await store.listRuns({ workflow: name, limit: 1 });
  if (!run) return null;
  let trigger = "manual";
  let partition: string | null = null;
  try {
    const split = splitPayload(decodeValue(run.payload));
    trigger = triggerOf(run, split.meta);
    partition = split.partition ?? null;
  } catch {
    // an unreadable payload keeps the defaults
  }
  const resolved = (await store.getSteps(run.id)).find((s) => s.key === "pipeline:partition");
  if (resolved?.value) partition = (decodeValue<{ value?: string }>(resolved.value).value ?? partition) || null;
  return {
    id: run.id,
    status: run.status,
    trigger,
    partition,
    createdAt: run.createdAt,
    finishedAt: run.finishedAt,
    error: run.error?.message ?? null,
  };
}

/** Reads the status of a folder's pipeline. */
export async function pipelineStatus(
  store: Store,
  folder: PipelineFolder,
  options: { decisions?: number; now?: number; decisionKinds?: readonly DecisionOutcome[]; decisionRun?: string } = {},
): Promise<PipelineStatus> {
  const now = options.now ?? Date.now();
  const members = orderedMembers(folder);
  const paths = new Set(members.map((m) => m.path));
  const scripts: ScriptStatus[] = [];
  for (const m of members) {
    scripts.push({
      path: m.path,
      name: m.name,
      error: folder.broken.get(m.path) ?? null,
      lastRun: await lastRun(store, m.name),
      freshness: (await freshnessOf(store, m, now, false)) ?? null,
      triggers: triggerViews(m),
    });
  }
  const joins = (await listJoins(store))
    .filter((j) => paths.has(j.script))
    .map((j) => {
      const m = members.find((x) => x.path === j.script)!;
      const required = m.analyzed.annotations.inputs.filter((i) => i.asset.partitioned).map((i) => i.asset.uri);
      return {
        script: j.script,
        partition: j.partition,
        generation: j.state.generation,
        have: Object.keys(j.state.inputs),
        missing: required.filter((r) => !j.state.inputs[r]),
      };
    })
    .filter((j) => j.have.length > 0);
  const debounces = (await listDebounces(store))
    .filter((d) => paths.has(d.script))
    .map((d) => ({
      script: d.script,
      partition: d.partition,
      window: d.state.window,
      open: d.state.open,
      until: d.state.until,
      writes: d.state.count,
      run: d.state.run,
    }));
  const written = (await store.kvList(WRITTEN_PREFIX)).map((row): WrittenPartition => {
    const { uri, partition, run, script, at } = parseWritten(row.key, row.value);
    return { uri, partition, run, script, at };
  });
  const assets = [];
  for (const a of folder.analysis.graph.assets) {
    const lineage = isLakeTableUri(a.asset.uri) ? await lineageOf(store, a.asset.uri) : undefined;
    assets.push({
      uri: a.asset.uri,
      partitions: written
        .filter((w) => w.uri === a.asset.uri || matchAssetUri(a.asset, w.uri) !== undefined)
        .sort((x, y) => ((x.partition ?? "") < (y.partition ?? "") ? -1 : 1)),
      ...(lineage && { columns: lineageLines(lineage) }),
    });
  }
  const decisions = await readDecisions(store, {
    scripts: paths,
    limit: options.decisions ?? 20,
    ...(options.decisionKinds && { outcomes: options.decisionKinds }),
    ...(options.decisionRun !== undefined && { run: options.decisionRun }),
  });
  return { folder: folder.folder, ok: folder.ok, scripts, joins, debounces, assets, decisions };
}
