/**
 * Connections a host opens once and shares between the runs it executes, by key, until the
 * host stops (a project's lake catalogs: a pipeline run used to open and close its lake every
 * run, paying the open, the statements' compilation, the re-read of what a write plans on and
 * the closing checkpoint each time). Pure but for the connections it is handed.
 */

/** What {@link SharedOpens} keeps: anything that is closed once. */
export interface Closable {
  close(): Promise<void>;
}

/** A connection held by one use until it releases it. */
export interface Held<T> {
  readonly opened: T;
  /** End this use (closing the connection only when it is not kept). */
  release(): Promise<void>;
}

/** The open connections of one host, by key; closed by {@link SharedOpens.close}. */
export class SharedOpens {
  private readonly opened = new Map<string, Promise<Closable>>();
  /** Uses in flight ({@link close} waits for them). */
  private users = 0;
  private readonly idle: Array<() => void> = [];
  private closed = false;

  /**
   * Run `fn` on the connection kept under `key` (see {@link acquire}).
   * @throws what `open` or `fn` throws
   */
  async use<T extends Closable, R>(key: string, open: () => Promise<T>, fn: (opened: T) => Promise<R>): Promise<R> {
    const held = await this.acquire(key, open);
    try {
      return await fn(held.opened);
    } finally {
      await held.release();
    }
  }

  /**
   * The connection kept under `key`, opened with `open` on first use (a failed open is not
   * kept: the next use opens again), until `release` (which leaves it open; the holder must not
   * close it). Once the host has closed, each use opens its own, which `release` closes.
   * @throws what `open` throws
   */
  async acquire<T extends Closable>(key: string, open: () => Promise<T>): Promise<Held<T>> {
    if (this.closed) {
      const own = await open();
      return { opened: own, release: () => own.close() };
    }
    this.users++;
    let released = false;
    const release = async (): Promise<void> => {
      if (released) return;
      released = true;
      if (--this.users === 0) for (const wake of this.idle.splice(0)) wake();
    };
    try {
      let kept = this.opened.get(key);
      if (!kept) {
        const opening: Promise<Closable> = open();
        kept = opening;
        this.opened.set(key, opening);
        opening.catch(() => {
          if (this.opened.get(key) === opening) this.opened.delete(key);
        });
      }
      // every use of a key passes the same `open`, so what is kept under it is a T
      return { opened: (await kept) as T, release };
    } catch (err) {
      await release();
      throw err;
    }
  }

  /** Close every kept connection, after the uses in flight (held ones) end; later uses open their own. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.users > 0) await new Promise<void>((r) => this.idle.push(r));
    const kept = [...this.opened.values()];
    this.opened.clear();
    for (const opening of kept) await (await opening.catch(() => undefined))?.close();
  }
}
