/**
 * The worker protocol on Postgres: two servers (two engines, each with its app, on one
 * database) share one queue. A worker long-polling on one server gets a run enqueued
 * on the other within milliseconds (LISTEN/NOTIFY), and its fenced writes work through
 * either server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../src/index.js";
import { createApp, type SluiceApp } from "../../src/http/app.js";
import { postJson } from "../helpers/post-json.js";
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

const post = (app: SluiceApp, path: string, body: unknown) =>
  postJson(app, path, body, { headers: { host: "127.0.0.1" } });

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

  it("task children with a cache and a park in chunks: children written through A, the park through B", async () => {
    const [a, b] = servers as [(typeof servers)[0], (typeof servers)[0]];
    await post(a.app, "/api/worker/workflows", { workflows: [{ name: "pg-tasks", version: "v3" }] });
    const claim = async (app: SluiceApp, limit = 1) =>
      (await post(app, "/api/worker/claim", { workerId: "w", workflows: ["pg-tasks"], limit, waitMs: 2_000 })).body
        .claims as any[];
    const first = (await post(a.app, "/api/runs", { workflow: "pg-tasks", payload: {} })).body.run.id as string;
    const [p] = await claim(a.app);
    const chunk = await post(a.app, `/api/worker/runs/${first}/children`, {
      token: p.token,
      children: [
        { key: "fetch", position: 0, task: "fetch", payload: { u: 1 }, cacheTtlMs: 600_000, priority: 2 },
        { key: "other", position: 1, task: "other", timeoutMs: 5_000 },
      ],
    });
    expect(chunk).toEqual({ status: 200, body: { created: ["fetch", "other"], existing: [] } });
    expect((await a.store.getRun(first))!).toMatchObject({ status: "running", outstanding: 2 });
    const kids = await claim(b.app, 2);
    expect(kids.map((k) => [k.task, k.version, k.timeoutMs])).toEqual([
      ["fetch", "v3", undefined],
      ["other", "v3", 5_000],
    ]);
    for (const k of kids) {
      const r = await post(b.app, `/api/worker/runs/${k.runId}/finish`, {
        token: k.token,
        outcome: k.task === "fetch" ? "succeeded" : "failed",
        ...(k.task === "fetch" ? { result: "page" } : { error: { message: "no", code: "NO" } }),
      });
      expect(r.status).toBe(200);
    }
    // Both finished before the park: the park finds nothing outstanding and the run is claimable at once.
    expect((await post(b.app, `/api/worker/runs/${first}/park`, { token: p.token, awaitChildren: true })).status).toBe(
      200,
    );
    const [again] = await claim(a.app);
    expect(again.runId).toBe(first);
    expect(again.steps.map((s: any) => [s.key, s.status, s.target, s.childId !== null, s.error?.code ?? null])).toEqual(
      [
        ["fetch", "done", "fetch", true, null],
        ["other", "error", "other", true, "NO"],
      ],
    );
    await post(a.app, `/api/worker/runs/${first}/finish`, { token: again.token, outcome: "succeeded" });

    // The cache answers the same task and payload in the park's commit, on Postgres too.
    const second = (await post(b.app, "/api/runs", { workflow: "pg-tasks", payload: {} })).body.run.id as string;
    const [q] = await claim(b.app);
    await post(b.app, `/api/worker/runs/${second}/park`, {
      token: q.token,
      children: [{ key: "fetch", position: 0, task: "fetch", payload: { u: 1 }, cacheTtlMs: 600_000 }],
    });
    expect(await b.store.listRuns({ parentId: second })).toEqual([]);
    const [q2] = await claim(b.app);
    expect(q2.steps.map((s: any) => [s.key, s.status, s.value])).toEqual([["fetch", "done", "page"]]);
    await post(b.app, `/api/worker/runs/${second}/finish`, { token: q2.token, outcome: "succeeded" });
  });

  it("a claim with a version takes only runs unpinned or pinned to it, on Postgres", async () => {
    const [a] = servers as [(typeof servers)[0]];
    await post(a.app, "/api/worker/workflows", { workflows: [{ name: "pg-pin", version: "v1" }] });
    const claimAs = async (version: string, waitMs = 300) =>
      (await post(a.app, "/api/worker/claim", { workerId: version, workflows: ["pg-pin"], version, waitMs })).body
        .claims as any[];
    const id = (await post(a.app, "/api/runs", { workflow: "pg-pin", payload: {} })).body.run.id as string;
    const [c1] = await claimAs("v1", 2_000);
    expect([c1.runId, c1.version]).toEqual([id, "v1"]);
    await post(a.app, `/api/worker/runs/${id}/park`, { token: c1.token, wakeAfterMs: 0 });
    expect(await claimAs("v2")).toEqual([]);
    const [c2] = await claimAs("v1", 2_000);
    expect(c2.runId).toBe(id);
    await post(a.app, `/api/worker/runs/${id}/finish`, { token: c2.token, outcome: "succeeded" });
  });
});
