import { EventEmitter } from "node:events";
import type { RunRecord } from "../store/types.js";

/** In-process notifications between engine parts (cross-process ones come from `Store.watch`). */
export interface EngineEventMap {
  /** Something may have become runnable: wake idle workers. */
  work: [];
  /** A worker of this engine started executing a claim. */
  started: [run: RunRecord, claim: number];
  /** A claim lost its lease: its writes were refused and it stopped (another attempt owns the run). */
  fenced: [runId: string];
  /**
   * A claim of this run ended in this process (finished, retrying, or cancelled here): re-read its
   * status, unless `finished` gives the run as its terminal write left it.
   */
  settled: [runId: string, finished?: RunRecord];
  /**
   * An expired lease of this run (its worker stopped heartbeating), or one released because its
   * worker was known gone (the run's error `LEASE_RELEASED`), was ended here: another attempt is
   * queued or the run failed. Not a claim of this process (a lane worker's first
   * claim is `started`/`settled` only).
   */
  reclaimed: [runId: string];
  /**
   * An out-of-process worker asked this server for work (the worker protocol's claim): the id it
   * claims under, the workflows it serves and the groups it claims from (null: any). How a
   * supervisor learns what a worker command it started serves (`lanes/`).
   */
  workerPoll: [workerId: string, workflows: readonly string[], groups: readonly string[] | null];
  /** This server answered `runs` claimed runs to an out-of-process worker's claim. */
  claimedExternally: [workerId: string, runs: number];
}

/** Typed event bus of one engine. */
export class EngineEvents extends EventEmitter<EngineEventMap> {
  constructor() {
    super();
    this.setMaxListeners(0);
  }
}
