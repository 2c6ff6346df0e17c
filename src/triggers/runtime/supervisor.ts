/**
 * The triggers of a project on one server (`sluice dev`, `sluice server`): one
 * {@link TriggerLoop} per trigger row, ticked together. Any number of servers may run one
 * on a shared database; each trigger is consumed by the server holding its leadership.
 */
import { randomUUID } from "node:crypto";
import type { Store } from "../../store/types.js";
import type { TriggerSpec } from "../spec.js";
import { type LoopDeps, TriggerLoop } from "./loop.js";
import type { EnqueueMessage } from "./targets.js";

/** Options of {@link TriggerSupervisor}. */
export interface SupervisorOptions {
  readonly store: Store;
  readonly enqueue: EnqueueMessage;
  readonly env?: Record<string, string | undefined>;
  readonly log?: (line: string) => void;
  /** How often each trigger checks its leadership and pause flag, ms. Default 1000. */
  readonly tickMs?: number;
  /** This server's id in the leaderships (default: random). */
  readonly holder?: string;
  readonly consumerFor?: LoopDeps["consumerFor"];
  /** The project's object store (email attachments). */
  readonly objects?: LoopDeps["objects"];
  /** The project's folder. */
  readonly root?: string;
}

/** Runs the trigger loops of one server. */
export class TriggerSupervisor {
  private loops = new Map<string, TriggerLoop>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private readonly deps: LoopDeps;
  private readonly tickMs: number;

  constructor(options: SupervisorOptions) {
    this.tickMs = options.tickMs ?? 1000;
    this.deps = {
      store: options.store,
      holder: options.holder ?? `${process.pid}-${randomUUID().slice(0, 8)}`,
      ttlMs: Math.max(5_000, 3 * this.tickMs),
      enqueue: options.enqueue,
      env: options.env ?? process.env,
      log: (line) => options.log?.(`${line}\n`),
      ...(options.consumerFor && { consumerFor: options.consumerFor }),
      ...(options.objects && { objects: options.objects }),
      ...(options.root !== undefined && { root: options.root }),
    };
  }

  /** The loops, by trigger id. */
  get triggers(): ReadonlyMap<string, TriggerLoop> {
    return this.loops;
  }

  /** Starts (or re-syncs to) these triggers: changed or removed rows stop, new ones start. */
  async sync(specs: readonly TriggerSpec[]): Promise<void> {
    const next = new Map(specs.map((s) => [s.id, s]));
    for (const [id, loop] of this.loops)
      if (JSON.stringify(next.get(id)) !== JSON.stringify(loop.spec)) {
        await loop.stop();
        this.loops.delete(id);
      }
    for (const spec of specs) if (!this.loops.has(spec.id)) this.loops.set(spec.id, new TriggerLoop(spec, this.deps));
    if (this.loops.size > 0 && !this.timer) {
      this.timer = setInterval(() => void this.tick(), this.tickMs);
      this.timer.unref();
    }
    await this.tick();
  }

  /** Ticks every loop once (never two ticks at a time). */
  async tick(): Promise<void> {
    if (this.ticking) return this.ticking;
    this.ticking = (async () => {
      for (const loop of this.loops.values())
        await loop.tick().catch((err: unknown) => this.deps.log(`trigger ${loop.spec.id}: ${String(err)}`));
    })().finally(() => (this.ticking = null));
    return this.ticking;
  }

  /** Stops every loop (consumers disconnect, leaderships are handed over). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    for (const loop of this.loops.values()) await loop.stop();
    this.loops.clear();
  }
}
