/**
 * The `// trigger all` barrier: per subscriber and partition, the partition-bearing inputs
 * written so far. When the last one arrives, the join fires once (a run with a
 * deterministic id) and the slot starts a new generation. State lives in one key-value
 * record per slot, updated with compare-and-set, so several processes can feed it.
 */
import type { Store } from "../../store/types.js";
import { dispatchRunId, slotKey, swapJson } from "./ids.js";

/** Key prefix of join slots. */
export const JOIN_PREFIX = "pipeline:join:";

/** The stored state of one join slot. */
export interface JoinState {
  /** The generation being collected (1 first). */
  readonly generation: number;
  /** When the slot was created (part of its run ids, so a slot deleted and reopened never reuses one). */
  readonly epoch: number;
  /** Declared input URI → the producer run that wrote it in this generation. */
  readonly inputs: Readonly<Record<string, { run: string; at: number }>>;
  /** Producer runs consumed by the last fired generation (a replayed producer is not counted twice). */
  readonly consumed: Readonly<Record<string, string>>;
  /** The last firing: its run id and payload, and the producer run that completed it. */
  readonly fired?: {
    readonly generation: number;
    readonly run: string;
    readonly by: string;
    readonly payload: unknown;
    readonly at: number;
  };
}

/** What offering one input to a join did. */
export type JoinOffer =
  | { readonly outcome: "pending"; readonly missing: readonly string[] }
  | {
      readonly outcome: "fired";
      readonly run: string;
      readonly generation: number;
      readonly payload: unknown;
      readonly again: boolean;
    };

/** The key of a join slot. */
function joinKey(script: string, partition: string): string {
  return slotKey(JOIN_PREFIX, script, partition);
}

/**
 * Offer a write of `input` (by producer run `by`) to the join of `script` for `partition`.
 * `required` lists the subscriber's partition-bearing inputs; `payloadFor` builds the run
 * payload when this offer completes the join. A producer that offers again (a replay)
 * gets the same answer as the first time.
 */
export async function offerJoin(
  store: Store,
  script: string,
  partition: string,
  input: string,
  by: string,
  required: readonly string[],
  payloadFor: (generation: number) => unknown,
): Promise<JoinOffer> {
  // The store's clock (the database's on Postgres), so servers with skewed clocks agree on times.
  const now = await store.now();
  return swapJson<JoinState, JoinOffer>(store, joinKey(script, partition), (cur) => {
    const state: JoinState = cur ?? { generation: 1, epoch: now, inputs: {}, consumed: {} };
    const missingOf = (inputs: JoinState["inputs"]) => required.filter((r) => !inputs[r]);
    if (state.fired && state.fired.by === by && state.consumed[input] === by) {
      return {
        next: undefined,
        result: {
          outcome: "fired",
          run: state.fired.run,
          generation: state.fired.generation,
          payload: state.fired.payload,
          again: true,
        },
      };
    }
    if (state.consumed[input] === by || state.inputs[input]?.run === by) {
      return { next: undefined, result: { outcome: "pending", missing: missingOf(state.inputs) } };
    }
    const inputs = { ...state.inputs, [input]: { run: by, at: now } };
    const missing = missingOf(inputs);
    if (missing.length > 0) return { next: { ...state, inputs }, result: { outcome: "pending", missing } };
    const run = dispatchRunId("j", script, partition, state.epoch, state.generation);
    const payload = payloadFor(state.generation);
    const consumed = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, v.run]));
    const next: JoinState = {
      generation: state.generation + 1,
      epoch: state.epoch,
      inputs: {},
      consumed,
      fired: { generation: state.generation, run, by, payload, at: now },
    };
    return { next, result: { outcome: "fired", run, generation: state.generation, payload, again: false } };
  });
}

/**
 * Count a write of `input` (by run `by`) that does not fire anything (a plan's or backfill's
 * step, a run started with `cascade: false`) towards the join of `script` for `partition`: the
 * input is materialized for that partition, so the next cascade write that completes the slot
 * fires the join with it counted. It never fires the join itself. @returns the inputs still missing
 */
export async function noteJoinInput(
  store: Store,
  script: string,
  partition: string,
  input: string,
  by: string,
  required: readonly string[],
): Promise<readonly string[]> {
  const now = await store.now();
  return swapJson<JoinState, readonly string[]>(store, joinKey(script, partition), (cur) => {
    const state: JoinState = cur ?? { generation: 1, epoch: now, inputs: {}, consumed: {} };
    const counted = state.consumed[input] === by || state.inputs[input]?.run === by;
    const inputs = counted ? state.inputs : { ...state.inputs, [input]: { run: by, at: now } };
    return { next: counted ? undefined : { ...state, inputs }, result: required.filter((r) => !inputs[r]) };
  });
}

/** Every join slot with inputs collected, for status views. */
export async function listJoins(store: Store): Promise<Array<{ script: string; partition: string; state: JoinState }>> {
  return (await store.kvList(JOIN_PREFIX)).map((row) => {
    const rest = row.key.slice(JOIN_PREFIX.length);
    const space = rest.lastIndexOf(" ");
    return {
      script: rest.slice(0, space),
      partition: rest.slice(space + 1),
      state: JSON.parse(row.value) as JoinState,
    };
  });
}
