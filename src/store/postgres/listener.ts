/**
 * Change notifications across processes: one dedicated connection LISTENs on the
 * schema's channel; writes that make work runnable or finish runs NOTIFY it in
 * their transaction. A dropped connection is re-opened (with backoff) and
 * re-subscribed, and watchers are called once then, since notifications sent
 * meanwhile were lost. A poll timer is the safety net under all of it.
 */
import { randomBytes } from "node:crypto";
import type * as pg from "pg";
import { pgDriver } from "./driver.js";
import type { PostgresTarget } from "./config.js";
import { clientConfig } from "./db.js";
import { ident } from "./migrate.js";
import type { WatchOptions } from "../types.js";

/** The NOTIFY channel of a schema (LISTEN takes an identifier, so it is quoted). */
export function channelOf(schema: string): string {
  return `sluice_${schema}`;
}

/** One LISTEN connection shared by every watcher of a store. */
export class Listener {
  /** Sent as the payload of this store's own NOTIFYs, so watchers of others' changes can skip them. */
  readonly origin = randomBytes(8).toString("hex");
  private readonly watchers = new Map<() => void, WatchOptions>();
  private client: pg.Client | null = null;
  private connecting = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private closed = false;

  constructor(
    private readonly target: PostgresTarget,
    private readonly ready: () => Promise<void>,
  ) {}

  /**
   * Adds a watcher (`othersOnly`: not called for this store's own NOTIFYs; `notifiedOnly`: not
   * called by the safety-net poll; `catchUp`: called once the LISTEN it waits for is in place);
   * returns its unsubscribe function.
   */
  add(onChange: () => void, options: WatchOptions = {}): () => void {
    this.watchers.set(onChange, options);
    if (this.watchers.size === 1) this.open();
    return () => {
      this.watchers.delete(onChange);
      if (this.watchers.size === 0) this.shut();
    };
  }

  private open(): void {
    if (this.closed) return;
    this.pollTimer ??= setInterval(() => this.fire(false, true), this.target.pollMs);
    this.pollTimer.unref();
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.connecting || this.client || this.closed || this.watchers.size === 0) return;
    this.connecting = true;
    const client = new (pgDriver().Client)(clientConfig(this.target));
    client.on("error", () => this.lost(client));
    client.on("end", () => this.lost(client));
    client.on("notification", (msg) => this.fire(msg.payload === this.origin));
    try {
      await this.ready();
      await client.connect();
      await client.query(`LISTEN ${ident(channelOf(this.target.schema))}`);
      if (this.closed || this.watchers.size === 0) {
        await client.end().catch(() => {});
        return;
      }
      this.client = client;
      // What was committed while nobody listened sent its NOTIFY to nobody: after a lost
      // connection every watcher is told; on the first LISTEN, those that asked (`catchUp`: a
      // CLI `enqueue --wait` whose run another process ended within milliseconds otherwise
      // waited for its waiter's full poll, 5 s).
      if (this.failures > 0) this.fire();
      else for (const [w, o] of [...this.watchers]) if (o.catchUp) w();
      this.failures = 0;
    } catch {
      client.removeAllListeners("end");
      await client.end().catch(() => {});
      this.retry();
    } finally {
      this.connecting = false;
    }
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => {});
    this.retry();
  }

  private retry(): void {
    if (this.closed || this.watchers.size === 0 || this.retryTimer) return;
    this.failures++;
    const wait = Math.min(5_000, 50 * 2 ** Math.min(this.failures, 7));
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, wait);
    this.retryTimer.unref();
  }

  /** Calls the watchers of a NOTIFY (`own`: sent by this store) or of the safety-net poll (`poll`). */
  private fire(own = false, poll = false): void {
    for (const [w, { othersOnly, notifiedOnly }] of [...this.watchers])
      if (!(own && othersOnly) && !(poll && notifiedOnly)) w();
  }

  private shut(): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.pollTimer = null;
    this.retryTimer = null;
    const c = this.client;
    this.client = null;
    if (c) {
      c.removeAllListeners("end");
      void c.end().catch(() => {});
    }
  }

  /** Stops listening for good. */
  close(): void {
    this.closed = true;
    this.watchers.clear();
    this.shut();
  }
}
