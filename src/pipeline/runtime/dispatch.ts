/**
 * The cascade: after a pipeline run succeeds, every member script with a matching
 * `// on <asset>` input is considered once per run. Each subscriber gets one decision:
 * dispatched (a run enqueued with a deterministic id), counted towards a `trigger all`
 * join, folded into a debounce window, or skipped with the reason (cascade turned off,
 * depth cap, a reference input under `trigger all`, a write without a partition).
 */
import { effectiveDebounce, partitionBearingInputs } from "../annotation-types.js";
import { assetContains, matchAssetUri } from "../asset-match.js";
import { UnknownWorkflowError } from "../../sdk/errors.js";
import type { Store } from "../../store/types.js";
import type { MemberScript, PipelineCatalog, Subscription } from "./catalog.js";
import { debounceKey, offerDebounce } from "./debounce.js";
import { type DispatchDecision, logDecisions } from "./decisions.js";
import { dispatchRunId } from "./ids.js";
import { noteJoinInput, offerJoin } from "./join.js";
import { buildPayload, type RunMeta } from "./meta.js";
import { DEFAULT_DEPTH_CAP } from "./triggers-config.js";

/** Hops a chain may take by default (a folder's `pipeline.json` may set `"depthCap"`): a run at this depth does not fire its downstream. */
export const MAX_CASCADE_DEPTH = DEFAULT_DEPTH_CAP;

/** How the dispatcher starts runs (the engine's `enqueueRun`, reduced). */
export type Enqueue = (
  workflow: string,
  payload: unknown,
  options: { id: string; retries?: number; runAt?: number },
) => Promise<{ id: string; deduplicated: boolean }>;

/** What the dispatcher needs. */
export interface DispatchDeps {
  readonly store: Store;
  readonly catalog: PipelineCatalog;
  readonly enqueue: Enqueue;
  readonly now: () => number;
}

/** A finished producer run and what it wrote. */
export interface ProducerRun {
  readonly member: MemberScript;
  readonly runId: string;
  readonly meta: RunMeta;
  readonly partition: string | undefined;
  readonly firedAt: number;
  /** Canonical concrete URIs written by the run. */
  readonly writes: readonly string[];
}

interface Hit {
  readonly member: MemberScript;
  readonly inputs: Array<Subscription["input"]>;
  readonly assets: Set<string>;
}

function hitsOf(catalog: PipelineCatalog, writes: readonly string[]): Hit[] {
  const byScript = new Map<string, Hit>();
  for (const sub of catalog.subscriptions()) {
    const matched = writes.filter(
      (w) => matchAssetUri(sub.input.asset, w) !== undefined || assetContains(sub.input.asset, w),
    );
    if (matched.length === 0) continue;
    const hit = byScript.get(sub.member.path) ?? { member: sub.member, inputs: [], assets: new Set<string>() };
    hit.inputs.push(sub.input);
    for (const m of matched) hit.assets.add(m);
    byScript.set(sub.member.path, hit);
  }
  return [...byScript.values()];
}

/**
 * Decide and act for every subscriber of a producer run's writes; the decisions are also
 * appended to the decision log. Idempotent per producer run: run ids are deterministic and
 * join/debounce slots recognise a producer they have already counted.
 */
export async function dispatchCascade(deps: DispatchDeps, producer: ProducerRun): Promise<DispatchDecision[]> {
  const decisions: DispatchDecision[] = [];
  const depth = producer.meta.depth + 1;
  for (const hit of hitsOf(deps.catalog, producer.writes)) {
    try {
      await decide(deps, producer, hit, depth, decisions);
    } catch (err) {
      // A subscriber that cannot run (its module failed to load) must not fail its producer.
      if (!(err instanceof UnknownWorkflowError)) throw err;
      decisions.push({
        at: deps.now(),
        outcome: "skipped",
        subscriber: hit.member.path,
        producer: producer.member.path,
        producerRun: producer.runId,
        assets: [...hit.assets].sort(),
        partition: producer.partition ?? null,
        depth,
        reason: `${hit.member.name} cannot be started here: it is not loaded (fix the errors \`sluice dev\` printed for it)`,
      });
    }
  }
  // A plan (selective run, backfill) turns the cascade off for each of its steps: those skips
  // stay in the step's own checkpoint, not in the project-wide log, where a backfill's
  // hundreds of them would push the real decisions out.
  await logDecisions(
    deps.store,
    producer.meta.trigger === "plan" ? decisions.filter((d) => d.outcome !== "skipped") : decisions,
  );
  return decisions;
}

/**
 * A write that fires nothing still materializes its partition of a `trigger all` subscriber's
 * partition-bearing inputs (seed 001: the join runs when every one "has been materialized for
 * that partition"): count it in the join's slot, so the cascade write that completes the slot
 * fires the join. @returns what to add to the skip's reason ("" when nothing was counted)
 */
async function countTowardsJoin(deps: DispatchDeps, producer: ProducerRun, hit: Hit): Promise<string> {
  const annotations = hit.member.analyzed.annotations;
  if (annotations.trigger !== "all" || producer.partition === undefined) return "";
  const required = partitionBearingInputs(annotations).map((i) => i.asset.uri);
  let missing: readonly string[] = required;
  let counted = false;
  for (const input of hit.inputs.filter((i) => i.asset.partitioned)) {
    missing = await noteJoinInput(
      deps.store,
      hit.member.path,
      producer.partition,
      input.asset.uri,
      producer.runId,
      required,
    );
    counted = true;
  }
  if (!counted) return "";
  return `; the write counts towards the join for ${producer.partition}${missing.length ? ` (still waiting for ${missing.join(", ")})` : ", which the next cascade write of one of its inputs fires"}`;
}

/** The decision (and action) for one subscriber hit by a producer's writes. */
async function decide(
  deps: DispatchDeps,
  producer: ProducerRun,
  hit: Hit,
  depth: number,
  decisions: DispatchDecision[],
): Promise<void> {
  const sub = hit.member;
  const base = {
    at: deps.now(),
    subscriber: sub.path,
    producer: producer.member.path,
    producerRun: producer.runId,
    assets: [...hit.assets].sort(),
    inputs: hit.inputs.map((i) => i.asset.uri),
    partition: producer.partition ?? null,
    depth,
  };
  const skip = (reason: string) => decisions.push({ ...base, outcome: "skipped", reason });
  if (!producer.meta.cascade) {
    const off = `cascade off for this run (${producer.meta.cascadeOffReason ?? "cascade: false"})`;
    skip(off + (await countTowardsJoin(deps, producer, hit)));
    return;
  }
  const cap = deps.catalog.folderOf(producer.member)?.depthCap ?? MAX_CASCADE_DEPTH;
  if (depth > cap) {
    skip(
      `depth cap: the chain already took ${cap} hops (a cycle or a runaway fan-out stops here; raise "depthCap" in pipeline.json for longer chains)`,
    );
    return;
  }
  const notLoaded = deps.catalog.notLoaded(sub);
  if (notLoaded !== undefined) {
    skip(`not loaded: ${notLoaded}`);
    return;
  }
  const partArgs = producer.partition === undefined ? {} : { partition: producer.partition };
  const upstream = { run: producer.runId, script: producer.member.path, assets: [...hit.assets].sort() };
  const retries = sub.analyzed.annotations.retry?.count;
  const enqueue = async (id: string, payload: unknown, runAt?: number) => {
    const r = await deps.enqueue(sub.name, payload, {
      id,
      ...(retries !== undefined && { retries }),
      ...(runAt !== undefined && { runAt }),
    });
    return r.id;
  };
  if (sub.analyzed.annotations.trigger === "all") {
    const required = partitionBearingInputs(sub.analyzed.annotations).map((i) => i.asset.uri);
    for (const input of hit.inputs) {
      const one = { ...base, inputs: [input.asset.uri] };
      if (!input.asset.partitioned) {
        decisions.push({
          ...one,
          outcome: "skipped",
          reason: `${input.asset.uri} is a reference input (no {partition}): under \`trigger all\` it does not fire the join; it is read when a partition-bearing input completes it`,
        });
        return;
      }
      if (producer.partition === undefined) {
        decisions.push({
          ...one,
          outcome: "skipped",
          reason: `the write carries no partition (the producer is not partitioned), so it cannot count towards the join of ${input.asset.uri}`,
        });
        return;
      }
      const offer = await offerJoin(
        deps.store,
        sub.path,
        producer.partition,
        input.asset.uri,
        producer.runId,
        required,
        (generation) =>
          buildPayload(partArgs, {
            trigger: "join",
            depth,
            cascade: true,
            firedAt: producer.firedAt,
            upstream,
            generation,
          }),
      );
      if (offer.outcome === "pending") {
        decisions.push({
          ...one,
          outcome: "join-pending",
          reason: `waiting for ${offer.missing.join(", ")} for partition ${producer.partition}`,
        });
      } else {
        const run = await enqueue(offer.run, offer.payload);
        decisions.push({
          ...one,
          outcome: "join-fired",
          run,
          reason: `every partition-bearing input is present for ${producer.partition} (generation ${offer.generation})${offer.again ? "; re-sent after a producer retry" : ""}`,
        });
      }
    }
    return;
  }
  const windows = hit.inputs.map((i) => effectiveDebounce(sub.analyzed.annotations, i)?.seconds);
  if (windows.some((w) => w === undefined)) {
    const payload = buildPayload(partArgs, {
      trigger: "cascade",
      depth,
      cascade: true,
      firedAt: producer.firedAt,
      upstream,
    });
    const run = await enqueue(dispatchRunId("c", sub.path, producer.runId), payload);
    decisions.push({ ...base, outcome: "dispatched", run });
    return;
  }
  const windowMs = Math.max(...(windows as number[])) * 1000;
  const key = debounceKey(sub.path, producer.partition);
  const now = deps.now();
  const offer = await offerDebounce(
    deps.store,
    key,
    sub.path,
    windowMs,
    {
      run: producer.runId,
      script: producer.member.path,
      assets: upstream.assets,
      depth,
      firedAt: producer.firedAt,
      at: now,
    },
    now,
  );
  // Only slot-level facts: every writer of the window enqueues the same payload (depth and upstream come from the last write at the gate).
  const payload = buildPayload(partArgs, { trigger: "debounce", cascade: true, slot: key, window: offer.window });
  const run = await enqueue(offer.run, payload, offer.until);
  decisions.push(
    offer.outcome === "scheduled"
      ? {
          ...base,
          outcome: "debounce-scheduled",
          run,
          reason: `debounce window ${offer.window} (${windowMs / 1000}s) opened; the run starts at ${new Date(offer.until).toISOString()} with the last write`,
        }
      : {
          ...base,
          outcome: "debounced",
          run,
          reason: `coalesced into window ${offer.window} (${offer.count} writes so far; last write wins), run starts at ${new Date(offer.until).toISOString()}`,
        },
  );
}
