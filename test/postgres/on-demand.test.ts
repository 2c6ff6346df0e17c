/**
 * The Postgres store as `openStore` opens it: a handle that loads the store on first use
 * (`store/postgres/on-demand.ts`). What the contract suite (which runs through the same handle)
 * cannot see: the calls made before it loads, a handle closed unused, a bad URL at open.
 */
import { afterAll, describe, expect, it } from "vitest";
import { RUN_BACKOFF } from "../../src/core/backoff.js";
import { openStore, storeReady } from "../../src/store/open.js";
import type { Command, Store } from "../../src/store/types.js";
import { testDatabase, withDatabase } from "../helpers/postgres.js";

const url = await testDatabase("ondemand");
const db = new URL(url).pathname.slice(1);
let n = 0;
const stores: Store[] = [];
const open = (schema = `d${n++}`): Store => {
  const s = openStore(withDatabase(url, db, { schema }), { pollMs: 60_000 });
  stores.push(s);
  return s;
};
afterAll(async () => {
  for (const s of stores) await s.close();
});

const enqueue = (id: string): Command => ({
  verb: "enqueue",
  request: { id, dedupe: false, workflow: "w", queue: "default", payload: null, maxAttempts: 1, backoff: RUN_BACKOFF },
});

describe("the Postgres store loaded on first use", () => {
  it("tells its kind and location at once, and answers the first calls made together", async () => {
    const store = open("first");
    expect(store.kind).toBe("postgres");
    expect(store.location).toMatchObject({ kind: "server", schema: "first" });
    expect(store.leasesChildren).toBe(true);
    // Several calls before the store has loaded: one store is built, every call answered by it.
    const [a, b, none] = await Promise.all([
      store.commit([enqueue("r1")]),
      store.commit([enqueue("r2")]),
      store.getRun("missing"),
    ]);
    expect([a[0]?.ok, b[0]?.ok, none]).toEqual([true, true, null]);
    expect((await store.getRuns(["r1", "r2"])).map((r) => r.id).sort()).toEqual(["r1", "r2"]);
  });

  it("delivers a change to a watch registered before the store loaded, and none after unsubscribing", async () => {
    const watched = open("watched");
    const other = open("watched");
    let calls = 0;
    watched.watch(() => calls++, { notifiedOnly: true });
    const cancelled = { calls: 0 };
    const off = watched.watch(() => cancelled.calls++, { notifiedOnly: true });
    off();
    await storeReady(watched);
    await storeReady(other);
    // LISTEN is set up asynchronously: commit until the notification arrives.
    for (let i = 0; i < 50 && calls === 0; i++) {
      await other.commit([enqueue(`w${i}`)]);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(calls).toBeGreaterThan(0);
    expect(cancelled.calls).toBe(0);
  });

  it("closed unused, stays closed: a later call fails instead of opening a pool nobody closes", async () => {
    const store = open("closed");
    await expect(store.close()).resolves.toBeUndefined();
    await expect(store.getRun("x")).rejects.toThrow(/pool/);
  });

  it("rejects a malformed URL at open, before anything loads", () => {
    expect(() => openStore("postgres://x@127.0.0.1/db?schema=Bad-Name")).toThrow(/invalid schema name/);
  });
});
