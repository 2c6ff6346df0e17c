/**
 * `.enqueue()` and `signal()` outside an engine: Tako's `TakoError("TAKO_UNAVAILABLE")`
 * from `sluice/tako` (Sluice's `SluiceUnavailableError` from `sluice`) when nothing is
 * configured or the configured database cannot be reached, and a producer engine on the
 * database `SLUICE_DATABASE` names otherwise; and `signal()`'s options (`{ buffer }`), as `sluice`'s.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  defineWorkflow as defineSluice,
  signal as signalSluice,
  SluiceError,
  SluiceUnavailableError,
  createEngine,
  type Engine,
} from "../../src/index.js";
import { defineWorkflow, signal, TakoError, TAKO_ERROR_CODES } from "../../src/tako.js";
import { currentRuntime } from "../../src/sdk/runtime.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir } from "../helpers/tmp.js";

const ENV = ["SLUICE_DATABASE", "SLUICE_DATABASE_URL"] as const;
const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));

afterEach(async () => {
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  // Stop the producer engine a test opened (it installed itself as this process's runtime).
  const engine = currentRuntime() as Engine | undefined;
  await engine?.stop();
  await engine?.store.close(); // a producer's store is opened by the connector, not owned by the engine
});

const order = defineWorkflow<{ orderId: string }>("fulfill-order", { retries: 4, handler: async (p) => p.orderId });

describe("the tako.sh entry point outside an engine", () => {
  it("throws TakoError TAKO_UNAVAILABLE (a SluiceError) when no engine runs and no database is configured", async () => {
    for (const k of ENV) delete process.env[k];
    const err = await order.enqueue({ orderId: "ord_1" }).catch((e) => e);
    expect(err).toBeInstanceOf(TakoError);
    expect(err).toBeInstanceOf(SluiceError);
    expect(err).toMatchObject({ name: "TakoError", code: "TAKO_UNAVAILABLE" });
    expect(err.message).toMatch(
      /enqueueing "fulfill-order" needs a Sluice engine: set SLUICE_DATABASE .* or SLUICE_DATABASE_URL/,
    );
    await expect(signal("approval:order-1", { approved: true })).rejects.toMatchObject({ code: "TAKO_UNAVAILABLE" });
    // sluice's own API raises its own error for the same failure.
    await expect(defineSluice("x", { handler: () => 1 }).enqueue({})).rejects.toBeInstanceOf(SluiceUnavailableError);
    await expect(signalSluice("e")).rejects.toMatchObject({ code: "UNAVAILABLE" });
    expect(TAKO_ERROR_CODES).toEqual(["TAKO_UNAVAILABLE"]);
    expect(new TakoError("TAKO_UNAVAILABLE").message).toMatch(/needs a Sluice engine/);
  });

  it("throws TAKO_UNAVAILABLE with the cause when the configured database cannot be reached", async () => {
    delete process.env.SLUICE_DATABASE;
    process.env.SLUICE_DATABASE_URL = "postgres://nobody:secret@127.0.0.1:1/nothing";
    const err = await order.enqueue({ orderId: "ord_1" }).catch((e) => e);
    expect(err).toBeInstanceOf(TakoError);
    expect(err.code).toBe("TAKO_UNAVAILABLE");
    expect(err.message).toMatch(/could not reach the Sluice database set by SLUICE_DATABASE_URL/);
    expect(err.message).not.toContain("secret");
    expect(err.cause).toBeInstanceOf(Error);
    expect(currentRuntime()).toBeUndefined();
  }, 30_000);

  it("enqueues into the database SLUICE_DATABASE names, with the definition's settings, as a producer", async () => {
    const db = join(tempDir("sluice-producer-"), "sluice.db");
    process.env.SLUICE_DATABASE = db;
    const runId = await order.enqueue(
      { orderId: "ord_123" },
      { id: "fulfill:ord_123", runAt: new Date(Date.now() + 60_000), retries: 6 },
    );
    expect(runId).toBe("fulfill:ord_123");
    expect(await order.enqueue({ orderId: "ord_123" }, { id: "fulfill:ord_123" })).toBe("fulfill:ord_123");
    expect(await signal("nobody-waits")).toBe(0);
    const engine = currentRuntime() as Engine;
    expect(engine.worker).toBeNull();
    expect(engine.scheduler).toBeNull();
    const store = openSqliteStore({ path: db });
    try {
      const run = await store.getRun("fulfill:ord_123");
      expect(run).toMatchObject({ workflow: "fulfill-order", status: "pending", maxAttempts: 7, queue: "default" });
      expect(await store.countRuns({})).toBe(1);
    } finally {
      await store.close();
    }
  });
});

describe("the tako.sh entry point's signal()", () => {
  it("signal() takes sluice's options: { buffer } keeps the signal for the next waitFor, a bad one is refused", async () => {
    const waiter = defineWorkflow<{ orderId: string }>("await-payment", {
      handler: async (p, ctx) => ctx.waitFor(`paid:${p.orderId}`, { timeout: "5s" }),
    });
    const engine = createEngine({ database: join(tempDir("sluice-tako-signal-"), "sluice.db"), workflows: [waiter] });
    await engine.start();
    try {
      await expect(signal("paid:1", { a: 1 }, { buffer: "soon" })).rejects.toMatchObject({ code: "INVALID_DURATION" });
      // Sent before any run waits: kept, and taken by the next waitFor.
      expect(await signal("paid:1", { a: 1 }, { buffer: "1h" })).toBe(0);
      const run = await waiter.start({ orderId: "1" });
      expect(await run.result({ timeout: "5s" })).toEqual({ a: 1 });
    } finally {
      await engine.stop();
    }
  });
});
