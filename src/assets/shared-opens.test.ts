import { describe, expect, it } from "vitest";
import { SharedOpens } from "./shared-opens.js";

/** A connection that counts its opens and closes. */
function counter() {
  const log = { opened: 0, closed: 0 };
  const open = async () => {
    log.opened++;
    return { id: log.opened, close: async () => void log.closed++ };
  };
  return { log, open };
}

describe("SharedOpens", () => {
  it("opens a key once for every use, including concurrent first uses, and closes it once", async () => {
    const shared = new SharedOpens();
    const { log, open } = counter();
    const ids = await Promise.all([1, 2, 3].map(() => shared.use("a", open, async (c) => c.id)));
    expect(await shared.use("a", open, async (c) => c.id)).toBe(1);
    expect(ids).toEqual([1, 1, 1]);
    expect(log).toEqual({ opened: 1, closed: 0 });
    await shared.close();
    expect(log).toEqual({ opened: 1, closed: 1 });
  });

  it("keeps different keys apart", async () => {
    const shared = new SharedOpens();
    const { log, open } = counter();
    await shared.use("a", open, async () => undefined);
    await shared.use("b", open, async () => undefined);
    expect(log.opened).toBe(2);
    await shared.close();
    expect(log.closed).toBe(2);
  });

  it("does not keep a failed open", async () => {
    const shared = new SharedOpens();
    const { log, open } = counter();
    let fail = true;
    const flaky = async () => {
      if (fail) throw new Error("catalog unreachable");
      return open();
    };
    await expect(shared.use("a", flaky, async () => undefined)).rejects.toThrow("catalog unreachable");
    fail = false;
    await shared.use("a", flaky, async () => undefined);
    expect(log.opened).toBe(1);
    await shared.close();
  });

  it("closes after the uses in flight end, and later uses open and close their own", async () => {
    const shared = new SharedOpens();
    const { log, open } = counter();
    let release!: () => void;
    const inFlight = shared.use("a", open, () => new Promise<void>((r) => (release = r)));
    await new Promise((r) => setTimeout(r, 1));
    const closing = shared.close();
    await new Promise((r) => setTimeout(r, 5));
    expect(log.closed).toBe(0);
    release();
    await inFlight;
    await closing;
    expect(log).toEqual({ opened: 1, closed: 1 });
    expect(await shared.use("a", open, async (c) => c.id)).toBe(2);
    expect(log).toEqual({ opened: 2, closed: 2 });
  });

  it("keeps a held connection open until its holder releases it, however often release is called", async () => {
    const shared = new SharedOpens();
    const { log, open } = counter();
    const held = await shared.acquire("a", open);
    let closed = false;
    const closing = shared.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(closed).toBe(false);
    await held.release();
    await held.release();
    await closing;
    expect(log).toEqual({ opened: 1, closed: 1 });
  });
});
