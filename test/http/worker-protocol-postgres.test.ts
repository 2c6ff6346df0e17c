/**
 * The worker protocol on Postgres: two servers (two engines, each with its app, on one
 * database) share one queue. A worker long-polling on one server gets a run enqueued
 * on the other within milliseconds (LISTEN/NOTIFY), and its fenced writes work through
 * either server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../src/index.js";
import { createApp, type SluiceApp } from "../../src/http/app.js";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/store.js";
import { testDatabase } from "../helpers/postgres.js";
import { delay } from "../helpers/tmp.js";

const url = await testDatabase("proto");
const servers: Array<{ engine: Engine; store: PostgresStore; app: SluiceApp }> = [];

beforeAll(async () => {
  for (let i = 0; i < 2; i++) {
    const store = openPostgresStore(url);
    const engine = createEngine({ store, worker: false, scheduler: false, server: `s${i}` });
    await engine.start();
    servers.push({ engine, store, app: createApp({ engine, auth: { mode: "off" }, uiDir: null }) });
  }
});
afterAll(async () => {
  for (const s of servers) {
    await s.engine.stop({ drainMs: 100 });
    await s.store.close();
  }
});

async function post(app: SluiceApp, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", host: "127.0.0.1" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe("worker protocol on Postgres, two servers", () => {
  it("a worker on server B claims a run enqueued on server A within milliseconds; writes go through either", async () => {
    const [a, b] = servers as [(typeof servers)[0], (typeof servers)[0]];
    expect(
      (await post(b.app, "/api/worker/workflows", { workflows: [{ name: "pg-order", maxAttempts: 2 }] })).status,
    ).toBe(200);
    const pending = post(b.app, "/api/worker/claim", { workerId: "go-1", workflows: ["pg-order"], waitMs: 5_000 });
    await delay(200);
    const t0 = performance.now();
    const enq = await post(a.app, "/api/runs", { workflow: "pg-order", payload: { n: 1 } });
    expect(enq.status, JSON.stringify(enq.body)).toBe(201);
    const claimed = await pending;
    const ms = performance.now() - t0;
    expect(claimed.body.claims).toHaveLength(1);
    const c = claimed.body.claims[0];
    expect(c).toMatchObject({ runId: enq.body.run.id, payload: { n: 1 } });
    expect(ms).toBeLessThan(1_000);
    const saved = await post(a.app, `/api/worker/runs/${c.runId}/steps`, {
      token: c.token,
      steps: [{ key: "s", kind: "step", status: "done", position: 0, value: 7 }],
    });
    expect(saved.status).toBe(200);
    const stale = await post(a.app, `/api/worker/runs/${c.runId}/finish`, { token: c.token + 1, outcome: "succeeded" });
    expect(stale.body.error.code).toBe("LEASE_LOST");
    expect(
      (await post(b.app, `/api/worker/runs/${c.runId}/finish`, { token: c.token, outcome: "succeeded", result: "ok" }))
        .body.status,
    ).toBe("succeeded");
    const run = await a.store.getRun(c.runId);
    expect(run).toMatchObject({ status: "succeeded", result: '"ok"' });
    expect((await a.store.getSteps(c.runId)).map((s) => [s.key, s.value])).toEqual([["s", "7"]]);
    console.log(`postgres: cross-server enqueue → claim ${ms.toFixed(1)} ms`);
  });
});
