/**
 * The worker protocol's speed paths, in-process (`app.request`) on a real SQLite engine
 * without a worker of its own: `POST /api/worker/batch` (many claims' writes in one
 * request and one commit) and the handoff of new runs to a waiting claim in their
 * enqueue commit.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../src/index.js";
import { createApp, type SluiceApp } from "../../src/http/app.js";
import { postJson } from "../helpers/post-json.js";
import { ExternalClaims } from "../../src/http/worker-protocol/claims.js";
import { WorkBell } from "../../src/http/worker-protocol/work-bell.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/store.js";
import { delay, tempDir } from "../helpers/tmp.js";

let engine: Engine;
let store: SqliteStore;
let app: SluiceApp;

beforeAll(async () => {
  store = openSqliteStore({ path: join(tempDir("sluice-batch-"), "sluice.db"), pollMs: 20 });
  engine = createEngine({ store, worker: false, scheduler: false });
  await engine.start();
  app = createApp({ engine, auth: { mode: "off" }, uiDir: null });
  const reg = await json("/api/worker/workflows", {
    workflows: [{ name: "b-order", group: "go" }, { name: "b-other" }],
  });
  expect(reg.status).toBe(200);
});
afterAll(async () => {
  await engine?.stop({ drainMs: 100 });
  await store?.close();
});

const json = (path: string, body: unknown, signal?: AbortSignal) => postJson(app, path, body, { signal });
const claimOne = async (workflow: string) => {
  const id = (await engine.enqueueRun(workflow, {})).id;
  const { claims } = (await json("/api/worker/claim", { workerId: "w", workflows: [workflow], waitMs: 2_000 })).body;
  expect(claims[0].runId).toBe(id);
  return claims[0] as { runId: string; token: number };
};
const step = (key: string, value: unknown, position = 0) => ({ key, kind: "step", status: "done", position, value });

describe("POST /api/worker/batch", () => {
  it("applies writes of several claims in one commit and answers each in order; a stale token is refused alone", async () => {
    const a = await claimOne("b-order");
    const b = await claimOne("b-order");
    const c = await claimOne("b-order");
    const before = engine.committer.stats.batches;
    const res = await json("/api/worker/batch", {
      writes: [
        { op: "steps", runId: a.runId, body: { token: a.token, steps: [step("charge", { paid: 1 })] } },
        { op: "steps", runId: b.runId, body: { token: b.token + 1, steps: [step("charge", { paid: 2 })] } },
        { op: "logs", runId: c.runId, body: { token: c.token, lines: [{ level: "info", message: "done" }] } },
        { op: "finish", runId: c.runId, body: { token: c.token, outcome: "succeeded", result: 7 } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      { status: 200, body: { saved: ["charge"] } },
      { status: 409, body: { error: { code: "LEASE_LOST", message: expect.stringContaining("stop working") } } },
      { status: 200, body: { accepted: 1 } },
      { status: 200, body: { status: "succeeded" } },
    ]);
    expect(engine.committer.stats.batches - before).toBe(1);
    expect((await store.getSteps(a.runId)).map((s) => [s.key, JSON.parse(s.value!)])).toEqual([
      ["charge", { paid: 1 }],
    ]);
    expect(await store.getSteps(b.runId)).toEqual([]);
    const done = (await store.getRun(c.runId))!;
    expect([done.status, JSON.parse(done.result!)]).toEqual(["succeeded", 7]);
    expect((await store.getLogs(c.runId)).map((l) => l.message)).toEqual(["done"]);
    for (const r of [a, b]) await json(`/api/worker/runs/${r.runId}/finish`, { token: r.token, outcome: "succeeded" });
  });

  it("a write with a bad body is refused alone (400 naming the field); the others are applied", async () => {
    const a = await claimOne("b-order");
    const res = await json("/api/worker/batch", {
      writes: [
        { op: "park", runId: a.runId, body: { token: a.token, wakeAfterMs: "soon" } },
        { op: "finish", runId: "no-such-run", body: { token: 1, outcome: "succeeded" } },
        { op: "steps", runId: a.runId, body: { token: a.token, steps: [step("ship", true)] } },
      ],
    });
    expect(res.body.results.map((r: any) => [r.status, r.body.error?.code ?? "ok"])).toEqual([
      [400, "INVALID_BODY"],
      [404, "RUN_NOT_FOUND"],
      [200, "ok"],
    ]);
    expect(res.body.results[0].body.error.message).toContain('"wakeAfterMs"');
    expect((await store.getRun(a.runId))!.status).toBe("running");
    expect((await store.getSteps(a.runId)).map((s) => s.key)).toEqual(["ship"]);
    await json(`/api/worker/runs/${a.runId}/finish`, { token: a.token, outcome: "succeeded" });
  });

  it("a bad envelope is refused whole with 400 and writes nothing", async () => {
    const a = await claimOne("b-order");
    for (const body of [
      { writes: [] },
      { writes: [{ op: "delete", runId: a.runId, body: {} }] },
      { writes: [{ op: "steps", runId: a.runId, body: {}, extra: 1 }] },
      { writes: [{ op: "steps", body: { token: a.token, steps: [step("x", 1)] } }] },
      { steps: [] },
    ]) {
      const res = await json("/api/worker/batch", body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("INVALID_BODY");
    }
    const ok = await json("/api/worker/batch", {
      writes: [
        { op: "steps", runId: a.runId, body: { token: a.token, steps: [step("x", 1)] } },
        { op: "delete", runId: a.runId, body: {} },
      ],
    });
    expect(ok.body.error.message).toContain('"writes[1].op"');
    expect(await store.getSteps(a.runId)).toEqual([]);
    await json(`/api/worker/runs/${a.runId}/finish`, { token: a.token, outcome: "succeeded" });
  });
});

describe("handoff: a waiting claim takes new runs in their enqueue commit", () => {
  it("the claim answers with the new run without claiming from the store again, up to its limit", async () => {
    const claims = countClaims();
    const pending = json("/api/worker/claim", { workerId: "w2", workflows: ["b-order"], limit: 2, waitMs: 5_000 });
    await delay(100);
    const seen = claims.count;
    const handles = await engine.enqueueMany("b-order", [{ n: 1 }, { n: 2 }, { n: 3 }]);
    const got = (await pending).body.claims as any[];
    expect(got.map((c) => c.runId)).toEqual(handles.slice(0, 2).map((h) => h.id));
    expect(got.map((c) => c.payload)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(claims.count).toBe(seen);
    for (const c of got) {
      const run = (await store.getRun(c.runId))!;
      expect([run.status, run.leaseOwner]).toEqual(["running", "w2"]);
    }
    expect((await store.getRun(handles[2]!.id))!.status).toBe("pending");
    const [third] = (await json("/api/worker/claim", { workerId: "w3", workflows: ["b-order"], waitMs: 100 })).body
      .claims;
    expect(third.runId).toBe(handles[2]!.id);
    claims.restore();
    for (const c of [...got, third])
      await json(`/api/worker/runs/${c.runId}/finish`, { token: c.token, outcome: "succeeded" });
  });

  it("runs of another workflow or group are not handed to the claim", async () => {
    const pending = json("/api/worker/claim", { workerId: "w4", workflows: ["b-order"], groups: ["eu"], waitMs: 300 });
    await delay(50);
    const other = await engine.enqueueRun("b-other", {});
    const wrongGroup = await engine.enqueueRun("b-order", {});
    expect((await pending).body.claims).toEqual([]);
    expect((await store.getRun(other.id))!.status).toBe("pending");
    expect((await store.getRun(wrongGroup.id))!.status).toBe("pending");
    for (const wf of ["b-other", "b-order"]) {
      const [c] = (await json("/api/worker/claim", { workerId: "w", workflows: [wf], waitMs: 100 })).body.claims;
      await json(`/api/worker/runs/${c.runId}/finish`, { token: c.token, outcome: "succeeded" });
    }
  });

  it("a run handed to a claim whose worker hung up meanwhile is given back at once, without spending an attempt", async () => {
    const claims = new ExternalClaims(engine, new WorkBell(engine));
    const hangUp = new AbortController();
    const waiting = claims.claim(
      { workerId: "gone", workflows: ["b-other"], groups: undefined, limit: 1, leaseMs: 30_000, waitMs: 5_000 },
      hangUp.signal,
    );
    await delay(50);
    // The worker hangs up after the run was promised to its claim, before the enqueue commits.
    const submit = engine.committer.submit.bind(engine.committer);
    engine.committer.submit = (cmd) => {
      if (cmd.verb === "enqueue" && cmd.request.claimFor?.workerId === "gone") hangUp.abort();
      return submit(cmd);
    };
    const id = (await engine.enqueueRun("b-other", {})).id;
    engine.committer.submit = submit;
    expect(hangUp.signal.aborted).toBe(true);
    expect(await waiting).toEqual([]);
    const [again] = (await json("/api/worker/claim", { workerId: "w5", workflows: ["b-other"], waitMs: 1_000 })).body
      .claims;
    expect(again.runId).toBe(id);
    expect(again.attempt).toBe(1);
    expect(again.token).toBe(2);
    await json(`/api/worker/runs/${id}/finish`, { token: again.token, outcome: "succeeded" });
  });
});

/** Counts calls of the store's `claim` verb (the real one runs). */
function countClaims(): { count: number; restore(): void } {
  const original = store.claim.bind(store);
  const counter = {
    count: 0,
    restore: () => {
      store.claim = original;
    },
  };
  store.claim = (req) => {
    counter.count++;
    return original(req);
  };
  return counter;
}
