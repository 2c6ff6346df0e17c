/**
 * Child runs in the worker protocol, in-process (`app.request`) on a real SQLite engine
 * without a worker of its own: a park creates child runs of registered workflows; each
 * child's outcome resolves the parent's `task` step, and the parent wakes when all are done.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../src/index.js";
import { createApp, type SluiceApp } from "../../src/http/app.js";
import { decodeValue } from "../../src/core/serde.js";
import { postJson } from "../helpers/post-json.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir } from "../helpers/tmp.js";

let engine: Engine;
let store: SqliteStore;
let app: SluiceApp;

beforeAll(async () => {
  store = openSqliteStore({ path: join(tempDir("sluice-children-"), "sluice.db"), pollMs: 20 });
  engine = createEngine({ store, worker: false, scheduler: false });
  await engine.start();
  app = createApp({ engine, auth: { mode: "off" }, uiDir: null });
  const reg = await json("/api/worker/workflows", {
    workflows: [{ name: "c-parent" }, { name: "c-child", group: "kids", maxAttempts: 1 }],
  });
  expect(reg.status).toBe(200);
});
afterAll(async () => {
  await engine?.stop({ drainMs: 100 });
  await store?.close();
});

const json = (path: string, body: unknown) => postJson(app, path, body);
const claim = async (workflow: string, waitMs = 2_000) =>
  (await json("/api/worker/claim", { workerId: "w", workflows: [workflow], waitMs })).body.claims as any[];

describe("child runs in the worker protocol", () => {
  it("a park creates children; their outcomes resolve the parent's steps and wake it once all are done", async () => {
    const parentId = (await engine.enqueueRun("c-parent", {})).id;
    const [p1] = await claim("c-parent");
    const parked = await json(`/api/worker/runs/${parentId}/park`, {
      token: p1.token,
      children: [
        { key: "double", position: 0, workflow: "c-child", payload: { n: 21 } },
        { key: "broken", position: 1, workflow: "c-child", payload: { n: 0 } },
      ],
    });
    expect(parked).toEqual({ status: 200, body: { status: "waiting" } });
    const kids = await store.listRuns({ parentId, limit: 10 });
    expect(kids.map((k) => [k.workflow, k.queue, k.maxAttempts]).sort()).toEqual([
      ["c-child", "kids", 1],
      ["c-child", "kids", 1],
    ]);
    const claims = await json("/api/worker/claim", { workerId: "w", workflows: ["c-child"], limit: 2, waitMs: 2_000 });
    const byN = Object.fromEntries(claims.body.claims.map((c: any) => [c.payload.n, c]));
    await json(`/api/worker/runs/${byN[21].runId}/finish`, { token: byN[21].token, outcome: "succeeded", result: 42 });
    // One child still runs: the parent is not claimable yet.
    expect((await store.getRun(parentId))!.status).toBe("waiting");
    await json(`/api/worker/runs/${byN[0].runId}/finish`, {
      token: byN[0].token,
      outcome: "failed",
      error: { message: "cannot double zero", code: "ZERO" },
    });
    const [p2] = await claim("c-parent");
    expect(p2.runId).toBe(parentId);
    expect(p2.steps.map((s: any) => [s.key, s.kind, s.status, s.value, s.error])).toEqual([
      ["double", "task", "done", 42, null],
      ["broken", "task", "error", null, { name: "Error", message: "cannot double zero", code: "ZERO" }],
    ]);
    await json(`/api/worker/runs/${parentId}/finish`, { token: p2.token, outcome: "succeeded" });
  });

  it("re-parking while a child runs (awaitChildren) waits for it; a child of an unknown workflow is refused", async () => {
    const parentId = (await engine.enqueueRun("c-parent", {})).id;
    const [p1] = await claim("c-parent");
    const unknown = await json(`/api/worker/runs/${parentId}/park`, {
      token: p1.token,
      children: [{ key: "x", position: 0, workflow: "nobody-serves-this" }],
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("UNKNOWN_WORKFLOW");
    expect((await store.getRun(parentId))!.status).toBe("running");
    expect(await store.listRuns({ parentId })).toEqual([]);
    // A child and a short wake: the parent wakes by time first, sees the child pending, re-parks.
    await json(`/api/worker/runs/${parentId}/park`, {
      token: p1.token,
      children: [{ key: "slow", position: 0, workflow: "c-child", payload: { n: 1 } }],
      wakeAfterMs: 50,
    });
    const [p2] = await claim("c-parent");
    expect(p2.steps.map((s: any) => [s.key, s.status])).toEqual([["slow", "pending"]]);
    await json(`/api/worker/runs/${parentId}/park`, { token: p2.token, awaitChildren: true });
    expect(await claim("c-parent", 300)).toEqual([]);
    const [child] = await claim("c-child");
    await json(`/api/worker/runs/${child.runId}/finish`, { token: child.token, outcome: "succeeded", result: 2 });
    const [p3] = await claim("c-parent");
    expect(p3.steps.map((s: any) => [s.key, s.status, s.value])).toEqual([["slow", "done", 2]]);
    await json(`/api/worker/runs/${parentId}/finish`, { token: p3.token, outcome: "succeeded" });
  });

  it("a workflow child whose payload does not fit the workflow's parameters is not created: its step fails with INVALID_ARGUMENTS", async () => {
    await engine.registerExternal([
      {
        name: "c-typed",
        version: null,
        queue: "default",
        maxAttempts: 1,
        backoff: { base: 1000, max: 1000 },
        source: "f/c_typed.py",
        schedule: null,
        params: { names: ["n", "tag"], required: ["n"], types: { n: { hint: "int", json: ["integer"] } } },
      },
    ]);
    const parentId = (await engine.enqueueRun("c-parent", {})).id;
    const [p1] = await claim("c-parent");
    const parked = await json(`/api/worker/runs/${parentId}/park`, {
      token: p1.token,
      children: [
        { key: "good", position: 0, workflow: "c-typed", payload: { n: 2, tag: "x" }, target: "script:c-typed" },
        { key: "typed", position: 1, workflow: "c-typed", payload: { n: "two" }, target: "script:c-typed" },
        { key: "named", position: 2, workflow: "c-typed", payload: { m: 1 } },
      ],
    });
    expect(parked).toEqual({ status: 200, body: { status: "waiting" } });
    const kids = await store.listRuns({ parentId, limit: 10 });
    expect(kids.map((k) => [k.workflow, decodeValue(k.payload)])).toEqual([["c-typed", { n: 2, tag: "x" }]]);
    const steps = await store.getSteps(parentId);
    expect(steps.map((s) => [s.key, s.target, s.status, s.childId, s.error])).toEqual([
      ["good", "script:c-typed", "pending", kids[0]!.id, null],
      [
        "typed",
        "script:c-typed",
        "error",
        null,
        {
          name: "InvalidArgumentsError",
          code: "INVALID_ARGUMENTS",
          message:
            'child "typed" not started: parameter "n" of c-typed is int, so it takes a whole number: got "two" (a string)',
        },
      ],
      [
        "named",
        "c-typed",
        "error",
        null,
        expect.objectContaining({
          message: expect.stringMatching(/^child "named" not started: unknown parameter "m" for c-typed/),
        }),
      ],
    ]);
    // The good child still runs the parent's wait; once it is done the replay reads the refusals.
    const [child] = await claim("c-typed");
    await json(`/api/worker/runs/${child.runId}/finish`, { token: child.token, outcome: "succeeded", result: 4 });
    const [p2] = await claim("c-parent");
    expect(p2.steps.map((s: any) => [s.key, s.status, s.value, s.error?.code ?? null])).toEqual([
      ["good", "done", 4, null],
      ["typed", "error", null, "INVALID_ARGUMENTS"],
      ["named", "error", null, "INVALID_ARGUMENTS"],
    ]);
    // A park whose only child is refused leaves nothing to wait for: the parent is claimable at once.
    const again = await json(`/api/worker/runs/${parentId}/park`, {
      token: p2.token,
      children: [{ key: "typed#2", position: 3, workflow: "c-typed", payload: { n: 1.5 } }],
    });
    expect(again).toEqual({ status: 200, body: { status: "waiting" } });
    const [p3] = await claim("c-parent");
    expect(p3.steps.find((s: any) => s.key === "typed#2")).toMatchObject({ status: "error", childId: null });
    expect(await store.listRuns({ parentId, limit: 10 })).toHaveLength(1);
    await json(`/api/worker/runs/${parentId}/finish`, { token: p3.token, outcome: "succeeded" });
  });

  it("a concurrency key on children: at most `limit` of them run at once", async () => {
    const parentId = (await engine.enqueueRun("c-parent", {})).id;
    const [p1] = await claim("c-parent");
    const concurrency = { key: "one-at-a-time", limit: 1 };
    await json(`/api/worker/runs/${parentId}/park`, {
      token: p1.token,
      children: [0, 1, 2].map((n) => ({ key: `k${n}`, position: n, workflow: "c-child", payload: { n }, concurrency })),
    });
    const first = await json("/api/worker/claim", { workerId: "w", workflows: ["c-child"], limit: 3, waitMs: 500 });
    expect(first.body.claims).toHaveLength(1);
    const c = first.body.claims[0];
    await json(`/api/worker/runs/${c.runId}/finish`, { token: c.token, outcome: "succeeded" });
    const second = await json("/api/worker/claim", { workerId: "w", workflows: ["c-child"], limit: 3, waitMs: 500 });
    expect(second.body.claims).toHaveLength(1);
    expect(second.body.claims[0].runId).not.toBe(c.runId);
  });
});
