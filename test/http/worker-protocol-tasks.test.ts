/**
 * Task children, per-task options, the journal's child fields and code versions in the
 * worker protocol, in-process (`app.request`) on a real SQLite engine without a worker of
 * its own: a park's child may be a `task` (a function of the parent's own workflow, pinned
 * to the parent's version), with `priority`, `timeoutMs` and `cacheTtlMs` stored by the
 * engine's rules; the journal names each task step's `childId`, `target` and the child's
 * serialized error.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../src/index.js";
import { createApp, type SluiceApp } from "../../src/http/app.js";
import { postJson } from "../helpers/post-json.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/store.js";
import { taskCacheKey } from "../../src/core/task-options.js";
import { tempDir } from "../helpers/tmp.js";

let engine: Engine;
let store: SqliteStore;
let app: SluiceApp;

beforeAll(async () => {
  store = openSqliteStore({ path: join(tempDir("sluice-tasks-"), "sluice.db"), pollMs: 20 });
  engine = createEngine({ store, worker: false, scheduler: false });
  await engine.start();
  app = createApp({ engine, auth: { mode: "off" }, uiDir: null });
  const reg = await json("/api/worker/workflows", {
    workflows: [{ name: "t-flow", version: "build-7" }, { name: "t-other" }],
  });
  expect(reg.status).toBe(200);
});
afterAll(async () => {
  await engine?.stop({ drainMs: 100 });
  await store?.close();
});

const json = (path: string, body: unknown) => postJson(app, path, body);
const claim = async (workflow: string, limit = 1, waitMs = 2_000) =>
  (await json("/api/worker/claim", { workerId: "w", workflows: [workflow], limit, waitMs })).body.claims as any[];
const finish = (c: any, body: Record<string, unknown>) =>
  json(`/api/worker/runs/${c.runId}/finish`, { token: c.token, ...body });

describe("task children in the worker protocol", () => {
  it("a task child is a run of the parent's workflow with its task and version; the journal names child, target and error", async () => {
    const parentId = (await engine.enqueueRun("t-flow", {})).id;
    const [p1] = await claim("t-flow");
    expect([p1.runId, p1.task, p1.version]).toEqual([parentId, null, "build-7"]);
    const parked = await json(`/api/worker/runs/${parentId}/park`, {
      token: p1.token,
      children: [
        { key: "extract", position: 0, task: "extract", payload: { n: 1 }, priority: 5, timeoutMs: 60_000 },
        { key: "load", position: 1, task: "load", workflow: "t-flow", payload: { n: 2 } },
        { key: "other", position: 2, workflow: "t-other" },
      ],
    });
    expect(parked).toEqual({ status: 200, body: { status: "waiting" } });
    const kids = await store.listRuns({ parentId, limit: 10 });
    const byKey = Object.fromEntries(kids.map((k) => [k.parentKey, k]));
    expect(byKey.extract).toMatchObject({ workflow: "t-flow", task: "extract", version: "build-7", priority: 5 });
    expect(JSON.parse(byKey.extract!.options!)).toEqual({ timeoutMs: 60_000 });
    expect(byKey.load).toMatchObject({ workflow: "t-flow", task: "load", version: "build-7", priority: 0 });
    expect(byKey.other).toMatchObject({ workflow: "t-other", task: null });

    // Priority 5 is claimed first; the claim carries task, version and the timeout's deadline.
    const [first] = await claim("t-flow");
    expect([first.task, first.version, first.payload]).toEqual(["extract", "build-7", { n: 1 }]);
    expect(first.deadline).toBeGreaterThanOrEqual(first.claimedAt + 60_000 - 5);
    expect(first.deadline).toBeLessThanOrEqual(first.claimedAt + 60_000);
    const [second] = await claim("t-flow");
    expect([second.task, second.deadline, second.timeoutMs]).toEqual(["load", undefined, undefined]);
    expect(first.timeoutMs).toBe(60_000);
    await finish(first, { outcome: "succeeded", result: { rows: 3 } });
    await finish(second, {
      outcome: "failed",
      error: { name: "ValueError", message: "bad row", code: "BAD_ROW" },
    });
    const [other] = await claim("t-other");
    await finish(other, { outcome: "succeeded", result: 1 });

    const [p2] = await claim("t-flow");
    expect(p2.runId).toBe(parentId);
    expect(p2.steps.map((s: any) => [s.key, s.kind, s.status, s.target, s.childId, s.value, s.error])).toEqual([
      ["extract", "task", "done", "extract", byKey.extract!.id, { rows: 3 }, null],
      [
        "load",
        "task",
        "error",
        "load",
        byKey.load!.id,
        null,
        { name: "ValueError", message: "bad row", code: "BAD_ROW" },
      ],
      ["other", "task", "done", "t-other", byKey.other!.id, 1, null],
    ]);
    await finish(p2, { outcome: "succeeded" });
  });

  it("cacheTtlMs: a task with the same payload that succeeded within the TTL answers at park, without a child", async () => {
    const first = (await engine.enqueueRun("t-flow", {})).id;
    const [a] = await claim("t-flow");
    await json(`/api/worker/runs/${first}/park`, {
      token: a.token,
      children: [{ key: "fetch", position: 0, task: "fetch", payload: { url: "x" }, cacheTtlMs: 3_600_000 }],
    });
    const [kid] = await store.listRuns({ parentId: first, limit: 10 });
    // The engine's cache rule: the same key as a built-in `task(fn)` call of this workflow and payload.
    expect(kid!.cacheKey).toBe(taskCacheKey("t-flow", "fetch", JSON.stringify({ url: "x" })));
    const [k] = await claim("t-flow");
    await finish(k, { outcome: "succeeded", result: "page" });
    const [a2] = await claim("t-flow");
    await finish(a2, { outcome: "succeeded" });

    const second = (await engine.enqueueRun("t-flow", {})).id;
    const [b] = await claim("t-flow");
    await json(`/api/worker/runs/${second}/park`, {
      token: b.token,
      children: [
        { key: "fetch", position: 0, task: "fetch", payload: { url: "x" }, cacheTtlMs: 3_600_000 },
        { key: "fetch#2", position: 1, task: "fetch", payload: { url: "y" }, cacheTtlMs: 3_600_000 },
      ],
    });
    // Only the uncached call made a child.
    const kids = await store.listRuns({ parentId: second, limit: 10 });
    expect(kids.map((r) => r.parentKey)).toEqual(["fetch#2"]);
    const [y] = await claim("t-flow");
    await finish(y, { outcome: "succeeded", result: "other page" });
    const [b2] = await claim("t-flow");
    expect(b2.steps.map((s: any) => [s.key, s.status, s.value, s.childId])).toEqual([
      ["fetch", "done", "page", k.runId],
      ["fetch#2", "done", "other page", y.runId],
    ]);
    await finish(b2, { outcome: "succeeded" });
  });

  it("bad child fields are refused with 400 naming the field, and nothing is written", async () => {
    const parentId = (await engine.enqueueRun("t-flow", {})).id;
    const [p] = await claim("t-flow");
    const cases: Array<[unknown, RegExp]> = [
      [
        { key: "a", position: 0, task: "f", workflow: "t-other" },
        /children\[1\]\.workflow.*parent's workflow "t-flow"/,
      ],
      [{ key: "a", position: 0 }, /"workflow" is required/],
      [{ key: "a", position: 0, task: "f", timeoutMs: 0 }, /children\[1\]: "timeoutMs" must be a whole number from 1/],
      [{ key: "a", position: 0, task: "f", cacheTtlMs: "1h" }, /"cacheTtlMs" must be a whole number/],
      [{ key: "a", position: 0, task: "f", priority: 1.5 }, /"priority" must be a whole number/],
      [{ key: "a", position: 0, task: 7 }, /"task" must be a string/],
      [{ key: "a", position: 0, task: "f", cache_ttl: 5 }, /unknown field "cache_ttl"/],
    ];
    for (const [child, message] of cases) {
      const r = await json(`/api/worker/runs/${parentId}/park`, {
        token: p.token,
        children: [{ key: "ok", position: 9, task: "fine" }, child],
      });
      expect(r.status, JSON.stringify(child)).toBe(400);
      expect(r.body.error.code).toBe("INVALID_BODY");
      expect(r.body.error.message).toMatch(message);
    }
    const dup = await json(`/api/worker/runs/${parentId}/park`, {
      token: p.token,
      children: [
        { key: "a", position: 0, task: "f" },
        { key: "a", position: 1, task: "f" },
      ],
    });
    expect([dup.status, dup.body.error.message]).toEqual([400, expect.stringMatching(/"a" is used twice/)]);
    expect((await store.getRun(parentId))!.status).toBe("running");
    expect(await store.listRuns({ parentId })).toEqual([]);
    expect(await store.getSteps(parentId)).toEqual([]);
    await finish(p, { outcome: "succeeded" });
  });

  it("a registered version is validated, and a run is pinned to the version registered when it is first claimed", async () => {
    const bad = await json("/api/worker/workflows", { workflows: [{ name: "t-v", version: "has space" }] });
    expect([bad.status, bad.body.error.message]).toEqual([400, expect.stringMatching(/workflows\[0\]\.version/)]);
    expect(await store.getWorkflow("t-v")).toBeNull();
    await json("/api/worker/workflows", { workflows: [{ name: "t-v", version: "v1" }] });
    const early = (await engine.enqueueRun("t-v", {})).id;
    const [c1] = await claim("t-v");
    expect([c1.runId, c1.version]).toEqual([early, "v1"]);
    // v2 registers while the v1 run is parked: the parked run keeps v1, a new one gets v2.
    await json(`/api/worker/runs/${early}/park`, { token: c1.token, wakeAfterMs: 0 });
    await json("/api/worker/workflows", { workflows: [{ name: "t-v", version: "v2" }] });
    const [c2] = await claim("t-v");
    expect([c2.runId, c2.version]).toEqual([early, "v1"]);
    await finish(c2, { outcome: "succeeded" });
    const late = (await engine.enqueueRun("t-v", {})).id;
    const [c3] = await claim("t-v");
    expect([c3.runId, c3.version]).toEqual([late, "v2"]);
    await finish(c3, { outcome: "succeeded" });
  });
});

describe("claims for one code version", () => {
  it("a claim with a version takes only runs unpinned or pinned to it, and pins the unpinned ones to it", async () => {
    await json("/api/worker/workflows", { workflows: [{ name: "t-pin", version: "v1" }] });
    const old = (await engine.enqueueRun("t-pin", {})).id;
    const claimAs = async (version: string, waitMs = 300) =>
      (await json("/api/worker/claim", { workerId: version, workflows: ["t-pin"], version, waitMs })).body
        .claims as any[];
    const [v1] = await claimAs("v1");
    expect([v1.runId, v1.version]).toEqual([old, "v1"]);
    await json(`/api/worker/runs/${old}/park`, { token: v1.token, wakeAfterMs: 0 });
    // v2 is deployed: its worker registers, and does not take the run pinned to v1.
    await json("/api/worker/workflows", { workflows: [{ name: "t-pin", version: "v2" }] });
    expect(await claimAs("v2")).toEqual([]);
    const fresh = (await engine.enqueueRun("t-pin", {})).id;
    const [v2] = await claimAs("v2", 2_000);
    expect([v2.runId, v2.version]).toEqual([fresh, "v2"]);
    // The v1 worker still drains its run.
    const [again] = await claimAs("v1", 2_000);
    expect([again.runId, again.version]).toEqual([old, "v1"]);
    await finish(again, { outcome: "succeeded" });
    await finish(v2, { outcome: "succeeded" });
    const bad = await json("/api/worker/claim", { workerId: "x", workflows: ["t-pin"], version: "a b" });
    expect([bad.status, bad.body.error.message]).toEqual([400, expect.stringMatching(/"version" must be/)]);
  });

  it("a claim's version pins an unpinned run to the claimer's version, not the latest registered", async () => {
    await json("/api/worker/workflows", { workflows: [{ name: "t-pin2", version: "new" }] });
    const id = (await engine.enqueueRun("t-pin2", {})).id;
    const r = await json("/api/worker/claim", { workerId: "w", workflows: ["t-pin2"], version: "old", waitMs: 2_000 });
    expect(r.body.claims.map((c: any) => [c.runId, c.version])).toEqual([[id, "old"]]);
    expect((await store.getRun(id))!.version).toBe("old");
    await finish(r.body.claims[0], { outcome: "succeeded" });
  });
});

describe("large fan-outs: children written in chunks before the park", () => {
  it("a park of 10,000 children sent as chunks under the body limit; the parent wakes once all have finished", async () => {
    const parentId = (await engine.enqueueRun("t-flow", {})).id;
    const [p] = await claim("t-flow");
    const all = Array.from({ length: 10_000 }, (_, i) => ({
      key: i === 0 ? "item" : `item#${i + 1}`,
      position: i,
      task: "item",
      payload: { i },
    }));
    const chunks = [all.slice(0, 4_000), all.slice(4_000, 8_000)];
    for (const chunk of chunks) {
      const body = JSON.stringify({ token: p.token, children: chunk });
      expect(body.length).toBeLessThan(1024 * 1024);
      const r = await json(`/api/worker/runs/${parentId}/children`, { token: p.token, children: chunk });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.created).toHaveLength(4_000);
    }
    // A retried chunk (its answer lost) creates nothing twice.
    const again = await json(`/api/worker/runs/${parentId}/children`, { token: p.token, children: chunks[1] });
    expect([again.body.created.length, again.body.existing.length]).toEqual([0, 4_000]);
    expect((await store.getRun(parentId))!.outstanding).toBe(8_000);
    // The claim is kept while the chunks are written: still running, its children already claimable.
    expect((await store.getRun(parentId))!.status).toBe("running");
    const [early] = await claim("t-flow");
    expect(early.task).toBe("item");
    await finish(early, { outcome: "succeeded", result: early.payload.i });
    const parked = await json(`/api/worker/runs/${parentId}/park`, { token: p.token, children: all.slice(8_000) });
    expect(parked).toEqual({ status: 200, body: { status: "waiting" } });
    expect((await store.getRun(parentId))!.outstanding).toBe(9_999);

    // Run the 9,999 other children: claims of 500, finishes in batches of 500; the parent is
    // claimable only once the last one has finished.
    let woke: any;
    let finished = 1;
    while (!woke) {
      const got = await claim("t-flow", 500);
      woke = got.find((c) => c.runId === parentId);
      if (woke) expect(finished).toBe(10_000);
      const kids = got.filter((c) => c.task === "item");
      if (kids.length === 0) continue;
      const writes = kids.map((c) => ({
        op: "finish",
        runId: c.runId,
        body: { token: c.token, outcome: "succeeded", result: c.payload.i },
      }));
      const r = await json("/api/worker/batch", { writes });
      expect(r.body.results.every((x: any) => x.status === 200)).toBe(true);
      finished += kids.length;
    }
    expect(woke.steps).toHaveLength(10_000);
    expect(woke.steps.every((s: any) => s.status === "done" && s.value === s.position)).toBe(true);
    await finish(woke, { outcome: "succeeded" });
  }, 120_000);

  it("a claim lost between chunks keeps its children: the next claim finds them pending and parks for them", async () => {
    const parentId = (await engine.enqueueRun("t-flow", {})).id;
    const [p] = await claim("t-flow");
    const chunk = [0, 1].map((i) => ({ key: `k${i}`, position: i, task: "item", payload: { i } }));
    await json(`/api/worker/runs/${parentId}/children`, { token: p.token, children: chunk });
    // Another claim takes over (the lease is given back, as after an expiry); the old token is refused.
    await engine.committer.submit({
      verb: "suspend",
      lease: { runId: parentId, token: p.token },
      steps: [],
      children: [],
      wakeAfterMs: 0,
      awaitChildren: false,
    });
    const stale = await json(`/api/worker/runs/${parentId}/children`, {
      token: p.token,
      children: [{ key: "k9", position: 9, task: "item" }],
    });
    expect([stale.status, stale.body.error.code]).toEqual([409, "LEASE_LOST"]);
    const got = await claim("t-flow", 10);
    const again = got.find((c) => c.runId === parentId)!;
    expect(again.steps.map((s: any) => [s.key, s.status])).toEqual([
      ["k0", "pending"],
      ["k1", "pending"],
    ]);
    await json(`/api/worker/runs/${parentId}/park`, { token: again.token, awaitChildren: true });
    for (const c of got.filter((x) => x.task === "item")) await finish(c, { outcome: "succeeded", result: 1 });
    const [woke] = await claim("t-flow");
    expect(woke.runId).toBe(parentId);
    await finish(woke, { outcome: "succeeded" });
  });

  it("a children write without children is refused with 400", async () => {
    const parentId = (await engine.enqueueRun("t-flow", {})).id;
    const [p] = await claim("t-flow");
    const r = await json(`/api/worker/runs/${parentId}/children`, { token: p.token, children: [] });
    expect([r.status, r.body.error.message]).toEqual([400, expect.stringMatching(/"children" is required/)]);
    await finish(p, { outcome: "succeeded" });
  });
});

describe("a child's journal label and a claim's asset helpers", () => {
  it("a child's target is what the journal records (default its name); over 512 characters is refused", async () => {
    const parentId = (await engine.enqueueRun("t-other", {})).id;
    const [p] = await claim("t-other");
    const long = await json(`/api/worker/runs/${parentId}/park`, {
      token: p.token,
      children: [{ key: "x", position: 0, workflow: "t-other", target: "s".repeat(513) }],
    });
    expect(long.status).toBe(400);
    expect(JSON.stringify(long.body)).toMatch(/children\[0\]\.target.*at most 512/);
    const parked = await json(`/api/worker/runs/${parentId}/park`, {
      token: p.token,
      children: [
        { key: "lib", position: 0, workflow: "t-other", target: "script:t-other" },
        { key: "plain", position: 1, workflow: "t-other" },
      ],
    });
    expect(parked.status).toBe(200);
    const steps = await store.getSteps(parentId);
    expect(steps.map((s) => [s.key, s.target])).toEqual([
      ["lib", "script:t-other"],
      ["plain", "t-other"],
    ]);
  });

  it("POST …/asset refuses a stale token with LEASE_LOST and answers an op's own error as data", async () => {
    expect((await json("/api/worker/workflows", { workflows: [{ name: "t-asset" }] })).status).toBe(200);
    const runId = (await engine.enqueueRun("t-asset", {})).id;
    const [c] = await claim("t-asset");
    expect(c.runId).toBe(runId);
    const stale = await json(`/api/worker/runs/${runId}/asset`, { token: c.token + 1, op: "get_resource", args: {} });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ error: { code: "LEASE_LOST" } });
    // This engine has no asset storage attached: the op's own error comes back as data.
    const answer = await json(`/api/worker/runs/${runId}/asset`, {
      token: c.token,
      op: "get_resource",
      args: { path: "u/x/y" },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ ok: false, error: { code: expect.any(String), message: expect.any(String) } });
    await finish(c, { outcome: "succeeded", result: null });
  });
});
