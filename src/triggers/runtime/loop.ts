/**
 * One trigger's lifecycle on one server. Every tick it asks the store for the trigger's
 * leadership (`trigger:<id>`: one server consumes a trigger at a time, and a standby takes it
 * over when the leader dies), reads the pause flag, and moves between its modes:
 *
 * - `standby`: another server leads (or nobody yet); no consumer.
 * - `starting` → `running`: this server leads and the consumer is connected.
 * - `paused`: the flag is set; the consumer is stopped, messages wait at the source.
 * - `backoff`: the consumer failed (or could not start); it is stopped and started again
 *   after a delay that doubles up to 30 s. The error is in the report.
 * - `stopped`: the loop ended (the server is stopping).
 *
 * While it leads, it rewrites the trigger's report (status, messages, last message, last
 * error) at most once per tick.
 */
import type { ObjectStore } from "../../assets/object-store.js";
import type { Store } from "../../store/types.js";
import { crashAt } from "../../worker/crash-points.js";
import { TriggerError } from "../errors.js";
import { messageRun, type RawMessage } from "../message.js";
import type { TriggerSpec } from "../spec.js";
import { decodeReport, pausedKey, reportKey, shorten, type TriggerReport, type TriggerStatus } from "../state.js";
import { type Consumer, type StartConsumer, stateKeyPrefix, type TriggerKv } from "./consumer.js";
import { consumerFor } from "./consumers.js";
import type { EnqueueMessage } from "./targets.js";

/** The modes of a {@link TriggerLoop}. */
export type LoopMode = "standby" | "starting" | "running" | "paused" | "backoff" | "stopped";

/** What a loop needs. */
export interface LoopDeps {
  readonly store: Store;
  /** This server's id in the leaderships. */
  readonly holder: string;
  /** Leadership lease (SQLite), ms. */
  readonly ttlMs: number;
  readonly enqueue: EnqueueMessage;
  readonly env: Record<string, string | undefined>;
  /** The project's folder. */
  readonly root?: string;
  /** The project's object store (email attachments). */
  readonly objects?: () => Promise<ObjectStore>;
  readonly log: (line: string) => void;
  /** Overrides the kind's consumer (tests of the loop itself). */
  readonly consumerFor?: (kind: TriggerSpec["kind"]) => Promise<StartConsumer>;
}

const MAX_BACKOFF_MS = 30_000;

/** Name of a trigger's leadership. */
function leadershipOf(id: string): string {
  return `trigger:${id}`;
}

/** One trigger consumed (or stood by for) on this server. */
export class TriggerLoop {
  private mode: LoopMode = "standby";
  private consumer: Consumer | null = null;
  private report: TriggerReport | null = null;
  private dirty = false;
  private failures = 0;
  private retryAt = 0;

  constructor(
    readonly spec: TriggerSpec,
    private readonly deps: LoopDeps,
  ) {}

  /** The current mode. */
  get current(): LoopMode {
    return this.mode;
  }

  private setMode(next: LoopMode, from: readonly LoopMode[]): void {
    if (!from.includes(this.mode)) throw new Error(`trigger ${this.spec.id}: cannot go ${this.mode} → ${next}`);
    this.mode = next;
  }

  /** One step: leadership, pause flag, (re)start or stop the consumer, flush the report. */
  async tick(now = Date.now()): Promise<void> {
    if (this.mode === "stopped") return;
    const { store, holder, ttlMs } = this.deps;
    const leading = await store.lead(leadershipOf(this.spec.id), holder, ttlMs).catch(() => false);
    if (!leading) {
      if (this.mode !== "standby") {
        await this.stopConsumer();
        this.setMode("standby", ["starting", "running", "paused", "backoff"]);
        this.report = null;
      }
      return;
    }
    if (this.report === null) await this.loadReport(now);
    const paused = (await store.kvGet(pausedKey(this.spec.id))) !== null;
    if (paused) {
      if (this.mode !== "paused") {
        await this.stopConsumer();
        this.setMode("paused", ["standby", "running", "backoff"]);
        this.update(now, { status: "paused" });
        this.deps.log(`trigger ${this.spec.id}: paused`);
      }
    } else if (this.mode === "paused" || this.mode === "standby" || (this.mode === "backoff" && now >= this.retryAt)) {
      await this.startConsumer(now);
    }
    await this.flush(now);
  }

  /** Stops the consumer and hands the leadership over. */
  async stop(): Promise<void> {
    if (this.mode === "stopped") return;
    await this.stopConsumer();
    if (this.mode !== "standby" && this.report) await this.flush(Date.now(), { status: "stopped" });
    this.mode = "stopped";
    await this.deps.store.resign(leadershipOf(this.spec.id), this.deps.holder).catch(() => {});
  }

  private async startConsumer(now: number): Promise<void> {
    this.setMode("starting", ["standby", "paused", "backoff"]);
    this.update(now, { status: "starting" });
    try {
      const start = await (this.deps.consumerFor ?? consumerFor)(this.spec.kind);
      const consumer = await start({
        spec: this.spec,
        deliver: (m) => this.deliver(m),
        fail: (err) => void this.failed(err),
        env: this.deps.env,
        kv: this.kv(),
        ...(this.deps.root !== undefined && { root: this.deps.root }),
        ...(this.deps.objects && { objects: this.deps.objects }),
      });
      if (this.mode !== "starting") {
        await consumer.stop().catch(() => {});
        return;
      }
      this.consumer = consumer;
      this.setMode("running", ["starting"]);
      this.failures = 0;
      this.update(Date.now(), { status: "running" });
      this.deps.log(`trigger ${this.spec.id}: consuming (${this.spec.kind})`);
    } catch (err) {
      if (this.mode === "starting") this.backoff(err as Error, now);
    }
  }

  private kv(): TriggerKv {
    const { store } = this.deps;
    const prefix = stateKeyPrefix(this.spec.id);
    const at = (key: string) => {
      if (key.includes(":")) throw new Error(`trigger state key ${JSON.stringify(key)} must not contain ":"`);
      return prefix + key;
    };
    return {
      get: async (key) => store.kvGet(at(key)),
      put: async (key, value) => store.kvPut(at(key), value),
      delete: async (key) => void (await store.kvDelete(at(key))),
    };
  }

  private async failed(err: Error): Promise<void> {
    if (this.mode !== "running") return;
    this.backoff(err, Date.now());
    await this.stopConsumer();
  }

  private backoff(err: Error, now: number): void {
    this.setMode("backoff", ["starting", "running"]);
    this.failures += 1;
    const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (this.failures - 1));
    this.retryAt = now + delay;
    this.update(now, { status: "error", lastError: err.message, lastErrorAt: now });
    this.deps.log(`trigger ${this.spec.id}: ${err.message} (retrying in ${Math.round(delay / 1000)} s)`);
  }

  private async stopConsumer(): Promise<void> {
    const c = this.consumer;
    this.consumer = null;
    if (c) await c.stop().catch(() => {});
  }

  /** Enqueues the run of one message; the consumer acks it when this resolves. */
  private async deliver(raw: RawMessage): Promise<void> {
    let run;
    try {
      run = messageRun(this.spec, raw);
    } catch (err) {
      // A message that cannot become a run never will: it is acknowledged (dropped) and the reason kept.
      if (err instanceof TriggerError && err.code === "TRIGGER_MESSAGE_INVALID") {
        const now = Date.now();
        this.update(now, { lastError: `a message was dropped: ${err.message}`, lastErrorAt: now });
        this.deps.log(`trigger ${this.spec.id}: dropped a message: ${err.message}`);
        return;
      }
      throw err;
    }
    const done = await this.deps.enqueue(this.spec, run);
    crashAt("trigger-after-enqueue");
    const now = Date.now();
    this.update(now, {
      messages: (this.report?.messages ?? 0) + 1,
      lastMessageAt: now,
      lastMessage: shorten(run.envelope),
      lastRunId: done.id,
    });
  }

  private async loadReport(now: number): Promise<void> {
    const stored = decodeReport(await this.deps.store.kvGet(reportKey(this.spec.id)).catch(() => null));
    this.report = { ...(stored ?? { messages: 0 }), status: "starting", holder: this.deps.holder, updatedAt: now };
    this.dirty = true;
  }

  private update(now: number, patch: Partial<TriggerReport> & { status?: TriggerStatus }): void {
    const base = this.report ?? { status: "starting" as const, holder: this.deps.holder, updatedAt: now, messages: 0 };
    this.report = { ...base, ...patch, holder: this.deps.holder, updatedAt: now };
    this.dirty = true;
  }

  private lastFlush = 0;

  private async flush(now: number, patch?: Partial<TriggerReport>): Promise<void> {
    if (patch) this.update(now, patch);
    // Rewritten when something changed, and at least every 2 s so readers see it is alive.
    if (!this.report || (!this.dirty && now - this.lastFlush < 2000)) return;
    this.report = { ...this.report, updatedAt: now };
    this.dirty = false;
    this.lastFlush = now;
    await this.deps.store.kvPut(reportKey(this.spec.id), JSON.stringify(this.report)).catch(() => {
      this.dirty = true;
    });
  }
}
