/**
 * The Store contract: every Store implementation runs this same suite
 * (`runStoreContract("sqlite", factory)`, later `runStoreContract("postgres", factory)`).
 * Tests use real time with short leases, so no implementation needs a fake clock.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChildSpec, Command, EnqueueRequest, Lease, Store } from "../../src/store/types.js";
import { delay } from "../helpers/tmp.js";
import { deriveSecretKey } from "../../src/core/sealed-secret.js";
import { loadResumeSecret } from "../../src/engine/resume-secret.js";
import { backoffDelay } from "../../src/core/backoff.js";
import { RELEASE_FORMAT } from "../../src/core/release.js";
import { releaseLeaseMs } from "../../src/store/run-errors.js";

/** Makes a fresh, empty, migrated store for one test. */
export type StoreFactory = () => Promise<Store>;

const WF = ["wf", "other", "email-wf"];
let counter = 0;

function req(over: Partial<EnqueueRequest> = {}): EnqueueRequest {
  counter += 1;
  return {
    id: `run-${process.pid}-${counter}`,
    dedupe: false,
    workflow: "wf",
    queue: "default",
    payload: JSON.stringify({ n: counter }),
    maxAttempts: 3,
    backoff: { base: 1000, max: 3_600_000 },
    ...over,
  };
}

async function one(store: Store, cmd: Command) {
  const [r] = await store.commit([cmd]);
  return r!;
}

async function enqueue(store: Store, over: Partial<EnqueueRequest> = {}) {
  const r = await one(store, { verb: "enqueue", request: req(over) });
  if (!r.ok) throw new Error(`enqueue failed: ${JSON.stringify(r)}`);
  return r.enqueued!.id;
}

async function claimOne(store: Store, leaseMs = 30_000): Promise<{ lease: Lease; attempt: number }> {
  const [c] = await store.claim({ workerId: "w1", limit: 1, leaseMs, workflows: WF });
  if (!c) throw new Error("nothing to claim");
  return { lease: { runId: c.run.id, token: c.token }, attempt: c.run.attempt };
}

/** Runs the shared Store contract against `makeStore`. */
export function runStoreContract(name: string, makeStore: StoreFactory): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    const open: Store[] = [];
    const fresh = async () => {
      store = await makeStore();
      open.push(store);
      return store;
    };
    afterEach(async () => {
      while (open.length) await open.pop()!.close();
    });

    describe("enqueue", () => {
      it("creates a pending run readable by id", async () => {
        await fresh();
        const id = await enqueue(store, { payload: '{"orderId":"ord_1"}' });
        const run = await store.getRun(id);
        expect(run).toMatchObject({
          id,
          workflow: "wf",
          status: "pending",
          attempt: 1,
          maxAttempts: 3,
          payload: '{"orderId":"ord_1"}',
        });
        expect(run!.rootId).toBe(id);
      });

      it("answers a run created leased (claimFor) exactly as it is stored", async () => {
        await fresh();
        await store.registerWorkflows([
          {
            name: "wf",
            version: "v7",
            queue: "default",
            maxAttempts: 3,
            backoff: { base: 1000, max: 3_600_000 },
            source: null,
            schedule: null,
          },
        ]);
        const request = req({
          task: "resize",
          priority: 3,
          options: '{"timeoutMs":5000}',
          createdBy: "ops@example.com",
          cacheKey: "resize:1",
          concurrency: { key: "tenant-1", limit: 2, windowMs: null },
          claimFor: { workerId: "w-local", leaseMs: 30_000 },
        });
        const claimedBy = async (request: EnqueueRequest) => {
          const r = await one(store, { verb: "enqueue", request });
          if (!r.ok || !("enqueued" in r) || !r.enqueued?.claimed) throw new Error(`not claimed: ${JSON.stringify(r)}`);
          return r.enqueued.claimed;
        };
        const claimed = await claimedBy(request);
        expect(claimed.token).toBe(1);
        expect(claimed.run).toMatchObject({ status: "running", version: "v7", leaseOwner: "w-local" });
        expect(claimed.run).toEqual(await store.getRun(request.id));
        const plain = req({ claimFor: { workerId: "w-local", leaseMs: 30_000 } });
        expect((await claimedBy(plain)).run).toEqual(await store.getRun(plain.id));
      });

      it("deduplicates a repeated id with the same workflow and payload (any key order), in any status", async () => {
        await fresh();
        const first = await one(store, {
          verb: "enqueue",
          request: req({ id: "order:1", dedupe: true, payload: '{"a":1,"b":2}' }),
        });
        expect(first).toEqual({ ok: true, enqueued: { id: "order:1", deduplicated: false } });
        const again = await one(store, {
          verb: "enqueue",
          request: req({ id: "order:1", dedupe: true, payload: '{"b":2,"a":1}' }),
        });
        expect(again).toEqual({ ok: true, enqueued: { id: "order:1", deduplicated: true } });
        const { lease } = await claimOne(store);
        await one(store, { verb: "complete", lease, outcome: { status: "succeeded", result: "1" } });
        const afterDone = await one(store, {
          verb: "enqueue",
          request: req({ id: "order:1", dedupe: true, payload: '{"a":1,"b":2}' }),
        });
        expect(afterDone).toEqual({ ok: true, enqueued: { id: "order:1", deduplicated: true } });
        expect((await store.getRun("order:1"))!.status).toBe("succeeded");
      });

      it("refuses a repeated id with a different payload or workflow, writing nothing", async () => {
        await fresh();
        await enqueue(store, { id: "order:2", dedupe: true, payload: '{"a":1}' });
        const payloadClash = await one(store, {
          verb: "enqueue",
          request: req({ id: "order:2", dedupe: true, payload: '{"a":2}' }),
        });
        expect(payloadClash).toMatchObject({ ok: false, error: { code: "RUN_ID_CONFLICT" } });
        const wfClash = await one(store, {
          verb: "enqueue",
          request: req({ id: "order:2", dedupe: true, workflow: "other", payload: '{"a":1}' }),
        });
        expect(wfClash).toMatchObject({ ok: false, error: { code: "RUN_ID_CONFLICT" } });
        expect((await store.getRun("order:2"))!.payload).toBe('{"a":1}');
        expect(await store.countRuns({})).toBe(1);
      });

      it("answers each command of a batch on its own", async () => {
        await fresh();
        await enqueue(store, { id: "taken", dedupe: true, payload: "1" });
        const results = await store.commit([
          { verb: "enqueue", request: req({ id: "a1", dedupe: true }) },
          { verb: "enqueue", request: req({ id: "taken", dedupe: true, payload: "2" }) },
          { verb: "enqueue", request: req({ id: "a2", dedupe: true }) },
        ]);
        expect(results.map((r) => r.ok)).toEqual([true, false, true]);
        expect(await store.countRuns({})).toBe(3);
      });

      it("keeps runAt runs out of claims until due", async () => {
        await fresh();
        const now = await store.now();
        await enqueue(store, { runAt: now + 60_000 });
        expect(await store.claim({ workerId: "w", limit: 10, leaseMs: 1000, workflows: WF })).toEqual([]);
        expect(await store.nextReadyAt(WF)).toBe(now + 60_000);
      });

      it("tells per worker group when its earliest pending or waiting run is ready (readyByQueue)", async () => {
        await fresh();
        expect(await store.readyByQueue(WF)).toEqual([]);
        const now = await store.now();
        await enqueue(store, { queue: "email", workflow: "email-wf", runAt: now + 60_000 });
        await enqueue(store, { queue: "email", workflow: "email-wf", runAt: now + 30_000 });
        await enqueue(store, { queue: "default" });
        await enqueue(store, { queue: "gpu", workflow: "unknown-to-lanes" });
        await enqueue(store, { queue: "default@a" });
        const ready = await store.readyByQueue(WF);
        expect(ready.map((r) => r.queue)).toEqual(["default", "default@a", "email"]);
        const byQueue = new Map(ready.map((r) => [r.queue, r.readyAt]));
        expect(byQueue.get("email")).toBe(now + 30_000);
        expect(byQueue.get("default")!).toBeLessThanOrEqual(await store.now());
        // A claimed run is no longer waiting for a worker; a parked one with a timer is.
        const [c] = await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: WF, queues: ["default"] });
        await one(store, {
          verb: "suspend",
          lease: { runId: c!.run.id, token: c!.token },
          steps: [],
          children: [],
          wakeAfterMs: 45_000,
          awaitChildren: false,
        });
        const after = new Map((await store.readyByQueue(WF)).map((r) => [r.queue, r.readyAt]));
        expect(after.get("default")).toBeGreaterThanOrEqual(now + 45_000);
        expect(after.get("default")).toBeLessThan(now + 60_000);
        await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: WF, queues: ["default@a"] });
        expect((await store.readyByQueue(WF)).map((r) => r.queue)).toEqual(["default", "email"]);
      });

      it("lists log lines across runs by run, workflow and time, newest page or after a seq (listLogs, lastLogSeq)", async () => {
        await fresh();
        expect(await store.lastLogSeq()).toBe(0);
        const a = await enqueue(store, { workflow: "wf" });
        const b = await enqueue(store, { workflow: "other" });
        const now = await store.now();
        const line = (runId: string, message: string, ts: number) => ({
          runId,
          stepKey: "s",
          attempt: 1,
          level: "info" as const,
          message,
          ts,
        });
        await one(store, {
          verb: "appendLogs",
          lines: [line(a, "a1", now - 86_400_000 * 2), line(b, "b1", now), line(a, "a2", now), line(a, "a3", now)],
        });
        const all = await store.listLogs({ limit: 100 });
        expect(all.map((l) => [l.message, l.workflow])).toEqual([
          ["a1", "wf"],
          ["b1", "other"],
          ["a2", "wf"],
          ["a3", "wf"],
        ]);
        expect((await store.listLogs({ limit: 2 })).map((l) => l.message)).toEqual(["a2", "a3"]);
        expect((await store.listLogs({ runId: b, limit: 100 })).map((l) => l.message)).toEqual(["b1"]);
        expect(
          (await store.listLogs({ workflow: "wf", since: now - 86_400_000, limit: 100 })).map((l) => l.message),
        ).toEqual(["a2", "a3"]);
        expect((await store.listLogs({ afterSeq: all[1]!.seq, limit: 1 })).map((l) => l.message)).toEqual(["a2"]);
        expect(await store.listLogs({ afterSeq: all[3]!.seq, limit: 10 })).toEqual([]);
        // The log's end, whatever the run; a follower's range stops there.
        expect(await store.lastLogSeq()).toBe(all[3]!.seq);
        expect(
          (await store.listLogs({ afterSeq: all[0]!.seq, upToSeq: all[2]!.seq, limit: 10 })).map((l) => l.message),
        ).toEqual(["b1", "a2"]);
        expect(
          (await store.listLogs({ workflow: "wf", afterSeq: 0, upToSeq: all[2]!.seq, limit: 10 })).map(
            (l) => l.message,
          ),
        ).toEqual(["a1", "a2"]);
        expect(
          (await store.listLogs({ runId: a, afterSeq: all[1]!.seq, upToSeq: all[3]!.seq, limit: 10 })).map((l) => [
            l.message,
            l.workflow,
          ]),
        ).toEqual([
          ["a2", "wf"],
          ["a3", "wf"],
        ]);
        // A finished run's line stamped by a worker clock ahead of the store's is still found by `since`
        // (store/log-window.ts bounds the scan by the runs that can have printed since then).
        const c = await enqueue(store, { workflow: "wf", priority: 100 });
        const [cc] = await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: WF });
        expect(cc!.run.id).toBe(c);
        await one(store, { verb: "appendLogs", lines: [line(c, "c-ahead", now + 60_000)] });
        await one(store, {
          verb: "complete",
          lease: { runId: c, token: cc!.token },
          outcome: { status: "succeeded", result: null },
        });
        expect(await store.lastLogSeq()).toBeGreaterThan(all[3]!.seq);
        expect((await store.listLogs({ since: now + 30_000, limit: 100 })).map((l) => l.message)).toEqual(["c-ahead"]);
        expect((await store.listLogs({ since: now + 3_600_000, limit: 100 })).map((l) => l.message)).toEqual([]);
        expect((await store.listLogs({ since: now - 60_000, limit: 2 })).map((l) => l.message)).toEqual([
          "a3",
          "c-ahead",
        ]);
      });

      it("counts runs by workflow and status, runnable runs per group with the oldest, and waiting approvals (metricsSnapshot)", async () => {
        await fresh();
        expect(await store.metricsSnapshot()).toMatchObject({ runs: [], runnable: [], approvalsWaiting: 0 });
        const now = await store.now();
        await enqueue(store, { queue: "email", workflow: "email-wf", runAt: now + 60_000 }); // not runnable yet
        await enqueue(store, { queue: "email", workflow: "email-wf" });
        await enqueue(store, { queue: "default" });
        await enqueue(store, { queue: "default" });
        await enqueue(store, { queue: "default" });
        // One default run succeeds, one parks on an approval; one stays pending.
        const claimDefault = async () => {
          const [c] = await store.claim({
            workerId: "w",
            limit: 1,
            leaseMs: 30_000,
            workflows: WF,
            queues: ["default"],
          });
          return { lease: { runId: c!.run.id, token: c!.token } };
        };
        const done = await claimDefault();
        expect(
          (await one(store, { verb: "complete", lease: done.lease, outcome: { status: "succeeded", result: null } }))
            .ok,
        ).toBe(true);
        const parked = await claimDefault();
        const approval = {
          key: "ok?",
          kind: "approval" as const,
          target: null,
          status: "pending" as const,
          position: 0,
        };
        const suspended = await one(store, {
          verb: "suspend",
          lease: parked.lease,
          steps: [approval],
          children: [],
          wakeAfterMs: null,
          awaitChildren: false,
        });
        expect(suspended.ok).toBe(true);
        const m = await store.metricsSnapshot();
        expect(m.now).toBeGreaterThanOrEqual(now);
        expect(m.runs).toEqual([
          { workflow: "email-wf", status: "pending", count: 2 },
          { workflow: "wf", status: "pending", count: 1 },
          { workflow: "wf", status: "succeeded", count: 1 },
          { workflow: "wf", status: "waiting", count: 1 },
        ]);
        expect(m.runnable.map((r) => [r.queue, r.count])).toEqual([
          ["default", 1],
          ["email", 1],
        ]);
        for (const r of m.runnable) expect(r.oldestReadyAt).toBeLessThanOrEqual(m.now);
        expect(m.approvalsWaiting).toBe(1);
      });
    });

    describe("overview", () => {
      it("counts enqueued, started and finished runs per bucket, the queue at the window's start, the slowest workflows and waiting approvals", async () => {
        await fresh();
        const empty = await store.overview({ from: 0, bucketMs: 60_000, slowest: 5, approvals: 5 });
        expect(empty).toEqual({ activity: [], queuedAtFrom: 0, slowest: [], approvals: [] });
        const a = await enqueue(store);
        const b = await enqueue(store);
        const c = await enqueue(store);
        const now0 = await store.now();
        await enqueue(store, { runAt: now0 + 3_600_000 }); // delayed: queued, not claimable
        const from = (await store.now()) + 1;
        await delay(15);
        const claimed = async (id: string) => {
          const [cl] = await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: WF });
          expect(cl!.run.id).toBe(id);
          return { runId: cl!.run.id, token: cl!.token };
        };
        const la = await claimed(a);
        expect(
          (await one(store, { verb: "complete", lease: la, outcome: { status: "succeeded", result: null } })).ok,
        ).toBe(true);
        const lb = await claimed(b);
        const failed = { status: "failed" as const, error: { name: "Error", message: "boom", code: "TERMINAL" } };
        expect((await one(store, { verb: "complete", lease: lb, outcome: failed })).ok).toBe(true);
        expect(await store.cancel(c, "not needed")).toBe("cancelled"); // never started
        const e = await enqueue(store, { workflow: "other" });
        const f = await enqueue(store, {
          workflow: "other",
          options: JSON.stringify({ traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" }),
        });
        const [cf] = await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: ["other"] });
        expect(cf!.run.id).toBe(e);
        await one(store, {
          verb: "complete",
          lease: { runId: e, token: cf!.token },
          outcome: { status: "succeeded", result: null },
        });
        const [cg] = await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: ["other"] });
        expect(cg!.run.id).toBe(f);
        const approval = {
          key: "ok?",
          kind: "approval" as const,
          target: null,
          status: "pending" as const,
          position: 0,
        };
        const parked = await one(store, {
          verb: "suspend",
          lease: { runId: f, token: cg!.token },
          steps: [approval],
          children: [],
          wakeAfterMs: null,
          awaitChildren: false,
        });
        expect(parked.ok).toBe(true);

        const o = await store.overview({ from, bucketMs: 3_600_000, slowest: 5, approvals: 5 });
        const count = (event: string) => o.activity.filter((x) => x.event === event).reduce((n, x) => n + x.count, 0);
        expect(o.activity.every((x) => x.bucket === 0)).toBe(true);
        expect(o.queuedAtFrom).toBe(4); // a, b, c and the delayed one
        expect(count("enqueued")).toBe(2); // e, f
        expect(count("started")).toBe(4); // a, b, e, f
        expect(count("succeeded")).toBe(2);
        expect(count("failed")).toBe(1);
        expect(count("left-unstarted")).toBe(1); // c
        expect(count("cancelled")).toBe(0);
        // The queue now: the window's start plus what came in, less what started or left.
        const queuedNow = o.queuedAtFrom + count("enqueued") - count("started") - count("left-unstarted");
        expect(queuedNow).toBe(await store.countRuns({ status: ["pending"] }));
        expect(o.slowest.map((w) => [w.workflow, w.runs]).sort()).toEqual([
          ["other", 1],
          ["wf", 2],
        ]);
        for (const w of o.slowest) expect(w.maxMs).toBeGreaterThanOrEqual(w.meanMs);
        expect(o.slowest[0]!.meanMs).toBeGreaterThanOrEqual(o.slowest[1]!.meanMs);
        expect(o.approvals).toEqual([
          {
            runId: f,
            workflow: "other",
            key: "ok?",
            since: expect.any(Number),
            options: expect.stringContaining("0af7651916cd43dd8448eb211c80319c"),
          },
        ]);
        // Small buckets: each count lands in the bucket of its time; a window after everything is empty of events.
        const fine = await store.overview({ from, bucketMs: 1, slowest: 1, approvals: 0 });
        expect(fine.activity.every((x) => x.bucket >= 0)).toBe(true);
        expect(fine.slowest).toHaveLength(1);
        expect(fine.approvals).toEqual([]);
        const later = await store.overview({
          from: (await store.now()) + 60_000,
          bucketMs: 60_000,
          slowest: 5,
          approvals: 5,
        });
        expect(later.activity).toEqual([]);
        expect(later.queuedAtFrom).toBe(await store.countRuns({ status: ["pending"] }));
      });
    });

    describe("overview of task children", () => {
      it("tells top-level runs from task children, so a child's failure its parent caught is not a failed run", async () => {
        await fresh();
        const from = (await store.now()) - 1;
        const parentId = await enqueue(store);
        const { lease } = await claimOne(store);
        expect(lease.runId).toBe(parentId);
        const child: ChildSpec = { ...req({ task: "double" }), parentKey: "double" };
        const step = { key: "double", kind: "task" as const, target: "double", status: "pending" as const };
        const parked = await one(store, {
          verb: "suspend",
          lease,
          steps: [{ ...step, childId: child.id, position: 0 }],
          children: [child],
          wakeAfterMs: null,
          awaitChildren: true,
        });
        expect(parked.ok).toBe(true);
        const { lease: childLease } = await claimOne(store);
        expect(childLease.runId).toBe(child.id);
        const failed = { status: "failed" as const, error: { name: "Error", message: "boom", code: "TERMINAL" } };
        expect((await one(store, { verb: "complete", lease: childLease, outcome: failed })).ok).toBe(true);

        const o = await store.overview({ from, bucketMs: 3_600_000, slowest: 5, approvals: 5 });
        const rows = (event: string) =>
          o.activity
            .filter((x) => x.event === event)
            .map((x) => [x.topLevel, x.count])
            .sort();
        expect(rows("failed")).toEqual([[false, 1]]);
        expect(rows("enqueued")).toEqual([
          [false, 1],
          [true, 1],
        ]);
        expect(rows("started")).toEqual([
          [false, 1],
          [true, 1],
        ]);
      });
    });

    describe("claim and leases", () => {
      it("claims highest priority first, then oldest, only known workflows and queues", async () => {
        await fresh();
        const low = await enqueue(store, { priority: 0 });
        const high = await enqueue(store, { priority: 10 });
        await enqueue(store, { workflow: "unknown-to-worker" });
        const email = await enqueue(store, { workflow: "email-wf", queue: "email" });
        const claimed = await store.claim({
          workerId: "w",
          limit: 10,
          leaseMs: 1000,
          workflows: WF,
          queues: ["default"],
        });
        expect(claimed.map((c) => c.run.id)).toEqual([high, low]);
        expect(claimed.every((c) => c.run.status === "running" && c.run.leaseOwner === "w")).toBe(true);
        const emailClaim = await store.claim({
          workerId: "w2",
          limit: 10,
          leaseMs: 1000,
          workflows: WF,
          queues: ["email"],
        });
        expect(emailClaim.map((c) => c.run.id)).toEqual([email]);
      });

      it("claims due runs in priority order across many priority levels, passing over parked and unknown runs", async () => {
        await fresh();
        const later = (await store.now()) + 3_600_000;
        // A parked run and an unknown workflow's run at the top priority must not hold the claim back.
        await enqueue(store, { priority: 100, runAt: later });
        await enqueue(store, { priority: 100, workflow: "unknown-to-worker" });
        // 20 levels: more than the due query walks one by one (it then sorts them in one query).
        const ids: string[] = [];
        for (let p = 0; p < 20; p++) ids.push(await enqueue(store, { priority: p % 2 === 0 ? p : -p }));
        const expected = ids
          .map((id, p) => ({ id, priority: p % 2 === 0 ? p : -p }))
          .sort((a, b) => b.priority - a.priority)
          .map((r) => r.id);
        const first = await store.claim({ workerId: "w", limit: 5, leaseMs: 30_000, workflows: WF });
        expect(first.map((c) => c.run.id)).toEqual(expected.slice(0, 5));
        const rest = await store.claim({ workerId: "w", limit: 50, leaseMs: 30_000, workflows: WF });
        expect(rest.map((c) => c.run.id)).toEqual(expected.slice(5));
        // A few levels: walked one by one, oldest first within a level.
        const a = await enqueue(store, { priority: 1 });
        const b = await enqueue(store, { priority: 3 });
        const c = await enqueue(store, { priority: 1 });
        await enqueue(store, { priority: 9, runAt: later });
        const few = await store.claim({ workerId: "w", limit: 10, leaseMs: 30_000, workflows: WF });
        expect(few.map((x) => x.run.id)).toEqual([b, a, c]);
      });

      it("keeps claim order when one claim takes runs with and without a concurrency key", async () => {
        await fresh();
        const ids: string[] = [];
        for (let i = 0; i < 6; i++)
          ids.push(
            await enqueue(store, {
              priority: 10 - i,
              ...(i % 2 === 0 && { concurrency: { key: `key-${i}`, limit: 1, windowMs: null } }),
            }),
          );
        const claimed = await store.claim({ workerId: "w", limit: 10, leaseMs: 30_000, workflows: WF });
        expect(claimed.map((c) => c.run.id)).toEqual(ids);
      });

      it("claims across priorities highest first, oldest first within one, never a run whose timer is later", async () => {
        await fresh();
        const later = await enqueue(store, { priority: 9, runAt: Date.now() + 60_000 });
        const low = await enqueue(store, { priority: -3 });
        const mid1 = await enqueue(store, { priority: 0 });
        const high = await enqueue(store, { priority: 5 });
        const mid2 = await enqueue(store, { priority: 0 });
        const first = await store.claim({ workerId: "w", limit: 2, leaseMs: 30_000, workflows: WF });
        expect(first.map((c) => c.run.id)).toEqual([high, mid1]);
        const rest = await store.claim({ workerId: "w", limit: 10, leaseMs: 30_000, workflows: WF });
        expect(rest.map((c) => c.run.id)).toEqual([mid2, low]);
        expect((await store.getRun(later))!.status).toBe("pending");
      });

      it("tells when each claimed run became due: its enqueue, its runAt, its retry, its reclaimed lease", async () => {
        await fresh();
        const t0 = await store.now();
        const now = await enqueue(store);
        const delayed = await enqueue(store, { runAt: t0 + 150 });
        const created = (await store.getRun(now))!.createdAt;
        const [first] = await store.claim({ workerId: "w", limit: 5, leaseMs: 30_000, workflows: WF });
        expect(first!.run.id).toBe(now);
        expect(first!.dueAt).toBe(created);
        expect(first!.claimedAt).toBeGreaterThanOrEqual(first!.dueAt);
        await delay(250);
        // Due at its runAt, not at its enqueue: claimed about 100 ms after it was due.
        const [late] = await store.claim({ workerId: "w", limit: 5, leaseMs: 300, workflows: WF });
        expect(late!.run.id).toBe(delayed);
        expect(late!.dueAt).toBe(t0 + 150);
        expect(late!.claimedAt - late!.dueAt).toBeGreaterThanOrEqual(90);
        // A retry is due when its backoff ends.
        const retried = await one(store, {
          verb: "complete",
          lease: { runId: now, token: first!.token },
          outcome: { status: "retry", error: { name: "E", message: "m" }, delayMs: 40 },
        });
        expect(retried.ok).toBe(true);
        const retryDue = (await store.getRun(now))!.readyAt!;
        await delay(350);
        // The retry, and the delayed run whose 300 ms lease expired and was reclaimed.
        expect(await store.reclaimExpired(10, () => 0)).toEqual([delayed]);
        const reclaimedDue = (await store.getRun(delayed))!.readyAt!;
        const again = await store.claim({ workerId: "w2", limit: 5, leaseMs: 30_000, workflows: WF });
        const due = Object.fromEntries(again.map((c) => [c.run.id, c.dueAt]));
        expect(due).toEqual({ [now]: retryDue, [delayed]: reclaimedDue });
        expect(reclaimedDue).toBeGreaterThan(late!.claimedAt);
      });

      it("applies a claim command after the rest of its batch: it takes the slot a completion frees and new runs", async () => {
        await fresh();
        const concurrency = { key: "k", limit: 1, windowMs: null };
        const a = await enqueue(store, { concurrency });
        const b = await enqueue(store, { concurrency });
        const [ca] = await store.claim({ workerId: "w", limit: 5, leaseMs: 30_000, workflows: WF });
        expect(ca!.run.id).toBe(a);
        const c = req();
        const claim: Command = { verb: "claim", request: { workerId: "w", limit: 5, leaseMs: 30_000, workflows: WF } };
        const [claimed, done, enqueued] = await store.commit([
          claim,
          { verb: "complete", lease: { runId: a, token: ca!.token }, outcome: { status: "succeeded", result: "7" } },
          { verb: "enqueue", request: c },
        ]);
        expect(enqueued).toMatchObject({ ok: true, enqueued: { id: c.id } });
        expect(claimed!.ok && claimed!.claimed!.map((x) => x.run.id)).toEqual([b, c.id]);
        expect(claimed!.ok && claimed!.claimed!.every((x) => x.run.status === "running" && x.token === 1)).toBe(true);
        // A terminal completion answers with the run as it now stands.
        expect(done).toMatchObject({ ok: true, finished: { id: a, status: "succeeded", result: "7" } });
        expect(await store.claim({ workerId: "w", limit: 5, leaseMs: 30_000, workflows: WF })).toEqual([]);
      });

      it("answers a final completion that carries its claimed run exactly as the run is then stored", async () => {
        await fresh();
        // A claimed run that succeeds; it was claimed before (its earlier error is replaced).
        await enqueue(store);
        const [c1] = await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: WF });
        const ok = await one(store, {
          verb: "complete",
          lease: { runId: c1!.run.id, token: c1!.token },
          outcome: { status: "succeeded", result: '{"n":1}' },
          claimed: c1!.run,
        });
        expect(ok.ok && ok.finished).toEqual(await store.getRun(c1!.run.id));
        // A run created leased that fails with an error object.
        const leased = req({ claimFor: { workerId: "w", leaseMs: 30_000 } });
        const created = await one(store, { verb: "enqueue", request: leased });
        const claimed = created.ok ? created.enqueued!.claimed! : null;
        const failed = await one(store, {
          verb: "complete",
          lease: { runId: leased.id, token: claimed!.token },
          outcome: { status: "failed", error: { name: "TypeError", message: "bad", code: "E_BAD" } },
          claimed: claimed!.run,
        });
        expect(failed.ok && failed.finished).toEqual(await store.getRun(leased.id));
        expect(failed.ok && failed.finished!.error).toMatchObject({ name: "TypeError", code: "E_BAD" });
        // A parent whose children were created under its claim (its outstanding count changed
        // after the claim read it) and that is then cancelled.
        await enqueue(store);
        const [c3] = await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: WF });
        const lease3 = { runId: c3!.run.id, token: c3!.token };
        const kid = { ...req({ task: "double" }), parentKey: "double" };
        const step = {
          key: "double",
          kind: "task" as const,
          target: "double",
          status: "pending" as const,
          childId: kid.id,
          position: 0,
        };
        const kept = await one(store, {
          verb: "suspend",
          lease: lease3,
          steps: [step],
          children: [kid],
          wakeAfterMs: null,
          awaitChildren: true,
          keepClaim: true,
        });
        expect(kept.ok).toBe(true);
        const cancelled = await one(store, {
          verb: "complete",
          lease: lease3,
          outcome: { status: "cancelled", reason: "stop" },
          claimed: c3!.run,
        });
        expect(cancelled.ok && cancelled.finished).toEqual(await store.getRun(lease3.runId));
        expect(cancelled.ok && cancelled.finished!.outstanding).toBe(1);
        // A stale claim carrying its run is fenced and writes nothing.
        expect(
          await one(store, {
            verb: "complete",
            lease: { runId: c1!.run.id, token: c1!.token },
            outcome: { status: "failed", error: { name: "E", message: "late" } },
            claimed: c1!.run,
          }),
        ).toEqual({ ok: false, fenced: true });
        expect((await store.getRun(c1!.run.id))!.status).toBe("succeeded");
      });

      it("answers a retried completion without a finished run, and a claim of no slots with nothing", async () => {
        await fresh();
        await enqueue(store);
        const { lease } = await claimOne(store);
        const [retried, none] = await store.commit([
          { verb: "complete", lease, outcome: { status: "retry", error: { name: "E", message: "m" }, delayMs: 0 } },
          { verb: "claim", request: { workerId: "w", limit: 0, leaseMs: 30_000, workflows: WF } },
        ]);
        expect(retried).toEqual({ ok: true });
        expect(none).toEqual({ ok: true, claimed: [] });
        expect((await store.getRun(lease.runId))!.status).toBe("pending");
      });

      it("skips runs in other servers' local queues (group@server) when the claim names its server", async () => {
        await fresh();
        const mine = await enqueue(store, { queue: "default@a" });
        await enqueue(store, { queue: "default@b" });
        const plain = await enqueue(store);
        const claimed = await store.claim({ workerId: "w", limit: 10, leaseMs: 30_000, workflows: WF, server: "a" });
        expect(claimed.map((c) => c.run.id).sort()).toEqual([mine, plain].sort());
      });

      it("never hands one run to two claims", async () => {
        await fresh();
        for (let i = 0; i < 20; i++) await enqueue(store);
        const batches = await Promise.all(
          Array.from({ length: 5 }, (_, i) =>
            store.claim({ workerId: `w${i}`, limit: 7, leaseMs: 30_000, workflows: WF }),
          ),
        );
        const ids = batches.flat().map((c) => c.run.id);
        expect(ids).toHaveLength(20);
        expect(new Set(ids).size).toBe(20);
      });

      it("fences a stale claim after its lease expired and the run was claimed again", async () => {
        await fresh();
        await enqueue(store);
        const first = await claimOne(store, 1);
        await delay(15);
        expect(await store.reclaimExpired(10, () => 0)).toEqual([first.lease.runId]);
        const second = await claimOne(store);
        expect(second.lease.token).not.toBe(first.lease.token);
        expect(second.attempt).toBe(2);
        const stale: Command[] = [
          {
            verb: "saveSteps",
            lease: first.lease,
            steps: [{ key: "s", kind: "step", target: null, status: "done", value: "1", position: 0 }],
          },
          { verb: "heartbeat", leases: [first.lease], leaseMs: 30_000 },
          { verb: "complete", lease: first.lease, outcome: { status: "succeeded", result: '"stale"' } },
        ];
        const [save, hb, done] = await store.commit(stale);
        expect(save).toEqual({ ok: false, fenced: true });
        expect(hb).toEqual({ ok: true, lost: [first.lease.runId] });
        expect(done).toEqual({ ok: false, fenced: true });
        expect(await store.getSteps(first.lease.runId)).toEqual([]);
        const ok = await one(store, {
          verb: "complete",
          lease: second.lease,
          outcome: { status: "succeeded", result: '"fresh"' },
        });
        expect(ok.ok).toBe(true);
        expect((await store.getRun(first.lease.runId))!.result).toBe('"fresh"');
      });

      it("delays the attempt after an expired lease by the run's own backoff", async () => {
        await fresh();
        const run = await enqueue(store, { backoff: { base: 45_000, max: 90_000 } });
        const { lease } = await claimOne(store, 1);
        await delay(15);
        const asked: Array<[number, { base: number; max: number }]> = [];
        const before = await store.now();
        expect(
          await store.reclaimExpired(10, (attempt, backoff) => {
            asked.push([attempt, backoff]);
            return backoffDelay(backoff, attempt, () => 0.5);
          }),
        ).toEqual([lease.runId]);
        expect(asked).toEqual([[1, { base: 45_000, max: 90_000 }]]);
        const after = (await store.getRun(run))!;
        expect(after).toMatchObject({ status: "pending", attempt: 2 });
        expect(after.readyAt! - before).toBeGreaterThanOrEqual(45_000);
        expect(after.readyAt! - before).toBeLessThan(46_000);
        // Not claimable before its backoff has passed.
        expect(await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: WF })).toEqual([]);
      });

      it("heartbeats keep a lease alive", async () => {
        await fresh();
        await enqueue(store);
        const { lease } = await claimOne(store, 50);
        const [hb] = await store.commit([{ verb: "heartbeat", leases: [lease], leaseMs: 60_000 }]);
        expect(hb).toEqual({ ok: true, lost: [] });
        await delay(80);
        expect(await store.reclaimExpired(10, () => 0)).toEqual([]);
      });

      it("fails a run whose lease expires on its last attempt (no poison loop)", async () => {
        await fresh();
        const id = await enqueue(store, { maxAttempts: 2 });
        await claimOne(store, 1);
        await delay(10);
        await store.reclaimExpired(10, () => 0);
        expect((await store.getRun(id))!).toMatchObject({ status: "pending", attempt: 2 });
        await claimOne(store, 1);
        await delay(10);
        await store.reclaimExpired(10, () => 0);
        const run = (await store.getRun(id))!;
        expect(run.status).toBe("failed");
        expect(run.error).toMatchObject({ code: "LEASE_EXPIRED" });
        expect(run.error!.message).toMatch(/last of 2 attempts/);
      });

      it("a lease released by its worker gets LEASE_RELEASED with its reason, an expired one LEASE_EXPIRED; both retried alike", async () => {
        await fresh();
        const backoff = { base: 45_000, max: 90_000 };
        await enqueue(store, { backoff });
        await enqueue(store, { backoff });
        const released = await claimOne(store, 30_000);
        const expired = await claimOne(store, 1);
        // The worker holding `released` is known gone (its process exited): the fenced release heartbeat.
        const [hb] = await store.commit([
          { verb: "heartbeat", leases: [released.lease], leaseMs: releaseLeaseMs("worker-exited") },
        ]);
        expect(hb).toEqual({ ok: true, lost: [] });
        await delay(15);
        const asked: Array<[number, { base: number; max: number }]> = [];
        const before = await store.now();
        const ids = await store.reclaimExpired(10, (attempt, b) => {
          asked.push([attempt, b]);
          return backoffDelay(b, attempt, () => 0.5);
        });
        expect([...ids].sort()).toEqual([released.lease.runId, expired.lease.runId].sort());
        // Same attempt counting and backoff for both kinds.
        expect(asked).toEqual([
          [1, backoff],
          [1, backoff],
        ]);
        const r = (await store.getRun(released.lease.runId))!;
        const e = (await store.getRun(expired.lease.runId))!;
        for (const run of [r, e]) {
          expect(run).toMatchObject({ status: "pending", attempt: 2, leaseOwner: null });
          expect(run.readyAt! - before).toBeGreaterThanOrEqual(45_000);
          expect(run.readyAt! - before).toBeLessThan(46_000);
        }
        expect(r.error).toEqual({
          name: "LeaseReleasedError",
          code: "LEASE_RELEASED",
          message: "attempt 1 was ended when its worker process exited (its claim was released, not left to expire)",
          data: { reason: "worker-exited" },
        });
        expect(e.error).toMatchObject({ name: "LeaseExpiredError", code: "LEASE_EXPIRED" });
        expect(e.error!.message).toBe(
          "attempt 1 stopped heartbeating (its worker died or stalled) and its lease expired",
        );
      });

      it("a lease released on the run's last attempt fails the run with LEASE_RELEASED and its reason", async () => {
        await fresh();
        const id = await enqueue(store, { maxAttempts: 1 });
        const { lease } = await claimOne(store, 30_000);
        await store.commit([{ verb: "heartbeat", leases: [lease], leaseMs: releaseLeaseMs("drain-timeout") }]);
        expect(await store.reclaimExpired(10, () => 0)).toEqual([id]);
        const run = (await store.getRun(id))!;
        expect(run.status).toBe("failed");
        expect(run.error).toMatchObject({ code: "LEASE_RELEASED", data: { reason: "drain-timeout" } });
        expect(run.error!.message).toBe(
          "attempt 1 was ended when its worker stopped with it still running after its drain timeout (its claim was released, not left to expire); that was the last of 1 attempts",
        );
      });

      it("a release marks only the claim it ended: a stale release changes nothing, the next attempt's expiry says expired", async () => {
        await fresh();
        const id = await enqueue(store);
        const first = await claimOne(store, 30_000);
        await store.commit([{ verb: "heartbeat", leases: [first.lease], leaseMs: releaseLeaseMs("worker-exited") }]);
        expect(await store.reclaimExpired(10, () => 0)).toEqual([id]);
        expect((await store.getRun(id))!.error).toMatchObject({ code: "LEASE_RELEASED" });
        const second = await claimOne(store, 1);
        expect(second.attempt).toBe(2);
        // The first claim's worker, released already, cannot mark the new claim.
        const [stale] = await store.commit([
          { verb: "heartbeat", leases: [first.lease], leaseMs: releaseLeaseMs("drain-timeout") },
        ]);
        expect(stale).toEqual({ ok: true, lost: [id] });
        await delay(15);
        expect(await store.reclaimExpired(10, () => 0)).toEqual([id]);
        const run = (await store.getRun(id))!;
        expect(run).toMatchObject({ status: "pending", attempt: 3 });
        expect(run.error).toMatchObject({ code: "LEASE_EXPIRED" });
        expect(run.error!.message).toMatch(/^attempt 2 stopped heartbeating/);
      });
    });

    describe("checkpoints and outcomes", () => {
      it("saves steps and returns them with the next claim", async () => {
        await fresh();
        await enqueue(store);
        const { lease } = await claimOne(store, 1);
        const r = await one(store, {
          verb: "saveSteps",
          lease,
          steps: [
            { key: "load", kind: "step", target: null, status: "done", value: '{"id":1}', position: 0 },
            { key: "nap", kind: "sleep", target: null, status: "pending", wakeAfterMs: 5_000, position: 1 },
          ],
        });
        expect(r.ok).toBe(true);
        await delay(10);
        await store.reclaimExpired(10, () => 0);
        const [again] = await store.claim({ workerId: "w", limit: 1, leaseMs: 1000, workflows: WF });
        expect(again!.steps.map((s) => [s.key, s.kind, s.status, s.value])).toEqual([
          ["load", "step", "done", '{"id":1}'],
          ["nap", "sleep", "pending", null],
        ]);
        expect(again!.steps[1]!.wakeAt! - again!.steps[1]!.startedAt).toBe(5_000);
        // Marking the sleep done later keeps its recorded wake time.
        await one(store, {
          verb: "saveSteps",
          lease: { runId: again!.run.id, token: again!.token },
          steps: [{ key: "nap", kind: "sleep", target: null, status: "done", position: 1 }],
        });
        const nap = (await store.getSteps(again!.run.id)).find((s) => s.key === "nap")!;
        expect(nap.status).toBe("done");
        expect(nap.wakeAt! - nap.startedAt).toBe(5_000);
      });

      it("retries with a delay and an incremented attempt, keeping steps", async () => {
        await fresh();
        const id = await enqueue(store);
        const { lease } = await claimOne(store);
        await store.commit([
          {
            verb: "saveSteps",
            lease,
            steps: [{ key: "a", kind: "step", target: null, status: "done", value: "1", position: 0 }],
          },
          {
            verb: "complete",
            lease,
            outcome: { status: "retry", error: { name: "Error", message: "boom" }, delayMs: 60_000 },
          },
        ]);
        const run = (await store.getRun(id))!;
        expect(run).toMatchObject({ status: "pending", attempt: 2, error: { message: "boom" } });
        expect(run.readyAt! - (await store.now())).toBeGreaterThan(55_000);
        expect(await store.getSteps(id)).toHaveLength(1);
      });

      it("retries a failed run on demand, keeping its checkpoints; leaves other statuses alone", async () => {
        await fresh();
        const id = await enqueue(store, { maxAttempts: 1 });
        const { lease } = await claimOne(store);
        await store.commit([
          {
            verb: "saveSteps",
            lease,
            steps: [{ key: "a", kind: "step", target: null, status: "done", value: "1", position: 0 }],
          },
          { verb: "complete", lease, outcome: { status: "failed", error: { name: "Error", message: "boom" } } },
        ]);
        expect(await store.retry(id)).toBe("pending");
        expect((await store.getRun(id))!).toMatchObject({
          status: "pending",
          attempt: 2,
          maxAttempts: 2,
          finishedAt: null,
        });
        expect(await store.retry(id)).toBe("pending");
        expect((await store.getRun(id))!.attempt).toBe(2);
        expect(await store.getSteps(id)).toHaveLength(1);
        expect(await store.retry("missing")).toBeNull();
      });

      it("records succeeded, failed and cancelled outcomes", async () => {
        await fresh();
        const ids = [await enqueue(store), await enqueue(store), await enqueue(store)];
        const claims = await store.claim({ workerId: "w", limit: 3, leaseMs: 30_000, workflows: WF });
        const byId = new Map(claims.map((c) => [c.run.id, { runId: c.run.id, token: c.token }]));
        await store.commit([
          { verb: "complete", lease: byId.get(ids[0]!)!, outcome: { status: "succeeded", result: "42" } },
          {
            verb: "complete",
            lease: byId.get(ids[1]!)!,
            outcome: { status: "failed", error: { name: "Error", message: "bad", code: "TERMINAL" } },
          },
          { verb: "complete", lease: byId.get(ids[2]!)!, outcome: { status: "cancelled", reason: "not needed" } },
        ]);
        const [a, b, c] = await Promise.all(ids.map((id) => store.getRun(id)));
        expect(a).toMatchObject({ status: "succeeded", result: "42" });
        expect(b).toMatchObject({ status: "failed", error: { code: "TERMINAL" } });
        expect(c).toMatchObject({
          status: "cancelled",
          error: { code: "CANCELLED", message: "cancelled: not needed" },
        });
        expect(a!.finishedAt).not.toBeNull();
        expect(await store.countRuns({ status: ["succeeded", "failed"] })).toBe(2);
      });
    });

    describe("suspension and children", () => {
      async function parentWithChildren(n: number) {
        const parentId = await enqueue(store);
        const { lease } = await claimOne(store);
        const children: ChildSpec[] = Array.from({ length: n }, (_, i) => ({
          ...req({ task: "double" }),
          parentKey: i ? `double#${i + 1}` : "double",
        }));
        const steps = children.map((c, i) => ({
          key: c.parentKey,
          kind: "task" as const,
          target: "double",
          status: "pending" as const,
          childId: c.id,
          position: i,
        }));
        const r = await one(store, { verb: "suspend", lease, steps, children, wakeAfterMs: null, awaitChildren: true });
        expect(r.ok).toBe(true);
        return { parentId, lease, children };
      }

      it("parks the parent holding no claim and creates its children in one step", async () => {
        await fresh();
        const { parentId, children } = await parentWithChildren(3);
        const parent = (await store.getRun(parentId))!;
        expect(parent).toMatchObject({ status: "waiting", outstanding: 3, leaseOwner: null, readyAt: null });
        const kids = await store.listRuns({ parentId });
        expect(kids.map((k) => k.id).sort()).toEqual(children.map((c) => c.id).sort());
        expect(kids.every((k) => k.rootId === parentId && k.task === "double")).toBe(true);
      });

      it("re-queues the parent when its last child finishes, counting each child once", async () => {
        await fresh();
        const { parentId } = await parentWithChildren(2);
        const kids = await store.claim({ workerId: "w", limit: 10, leaseMs: 30_000, workflows: WF });
        expect(kids).toHaveLength(2);
        const [k1, k2] = kids.map((k) => ({ runId: k.run.id, token: k.token }));
        await one(store, { verb: "complete", lease: k1!, outcome: { status: "succeeded", result: "10" } });
        expect((await store.getRun(parentId))!).toMatchObject({ status: "waiting", outstanding: 1 });
        // A duplicate completion of the same child is fenced and changes nothing.
        expect(
          await one(store, { verb: "complete", lease: k1!, outcome: { status: "succeeded", result: "10" } }),
        ).toEqual({ ok: false, fenced: true });
        await one(store, {
          verb: "complete",
          lease: k2!,
          outcome: { status: "failed", error: { name: "Error", message: "child broke" } },
        });
        const parent = (await store.getRun(parentId))!;
        expect(parent).toMatchObject({ status: "pending", outstanding: 0 });
        const steps = await store.getSteps(parentId);
        expect(steps.map((s) => [s.key, s.status, s.value, s.error?.message ?? null])).toEqual([
          ["double", "done", "10", null],
          ["double#2", "error", null, "child broke"],
        ]);
        const [resumed] = await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: WF });
        expect(resumed!.run.id).toBe(parentId);
        expect(resumed!.run.attempt).toBe(1);
      });

      it("wakes a parked run when its timer is due, without spending an attempt", async () => {
        await fresh();
        const id = await enqueue(store);
        const { lease } = await claimOne(store);
        await one(store, {
          verb: "suspend",
          lease,
          steps: [{ key: "nap", kind: "sleep", target: null, status: "pending", wakeAfterMs: 40, position: 0 }],
          children: [],
          wakeAfterMs: 40,
          awaitChildren: false,
        });
        expect(await store.claim({ workerId: "w", limit: 1, leaseMs: 1000, workflows: WF })).toEqual([]);
        await delay(60);
        const [c] = await store.claim({ workerId: "w", limit: 1, leaseMs: 1000, workflows: WF });
        expect(c!.run).toMatchObject({ id, attempt: 1, status: "running" });
      });

      it("signals wake exactly the runs waiting on the event and return their count", async () => {
        await fresh();
        const waiting: string[] = [];
        for (const event of ["approval:1", "approval:1", "approval:2"]) {
          const id = await enqueue(store);
          const { lease } = await claimOne(store);
          await one(store, {
            verb: "suspend",
            lease,
            steps: [{ key: event, kind: "wait", target: null, status: "pending", event, position: 0 }],
            children: [],
            wakeAfterMs: null,
            awaitChildren: false,
          });
          waiting.push(id);
        }
        expect(await store.signal("approval:1", '{"approved":true}')).toEqual({ woken: 2, buffered: false });
        expect(await store.signal("approval:1", '{"approved":true}')).toEqual({ woken: 0, buffered: false });
        expect(await store.signal("nobody", null)).toEqual({ woken: 0, buffered: false });
        const statuses = await Promise.all(waiting.map(async (id) => (await store.getRun(id))!.status));
        expect(statuses).toEqual(["pending", "pending", "waiting"]);
        const steps = await store.getSteps(waiting[0]!);
        expect(steps[0]).toMatchObject({ status: "done", value: '{"approved":true}' });
      });

      /** Claims a fresh run and parks it on `waitFor(event)`; returns its id. */
      let parkPriority = 1000;
      async function parkedOn(event: string): Promise<string> {
        // Above every run re-queued by a signal, so this claim takes the run just enqueued.
        const id = await enqueue(store, { priority: parkPriority++ });
        const [c] = await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: WF });
        expect(c!.run.id).toBe(id);
        const r = await one(store, {
          verb: "suspend",
          lease: { runId: id, token: c!.token },
          steps: [{ key: event, kind: "wait", target: null, status: "pending", event, position: 0 }],
          children: [],
          wakeAfterMs: null,
          awaitChildren: false,
        });
        expect(r.ok).toBe(true);
        return id;
      }

      it("keeps a buffered signal nobody waited for until the next waitFor parks, which takes it once", async () => {
        await fresh();
        expect(await store.signal("paid:1", '{"n":1}', 60_000)).toEqual({ woken: 0, buffered: true });
        expect(await store.signal("paid:1", '{"n":2}', 60_000)).toEqual({ woken: 0, buffered: true });
        const first = await parkedOn("paid:1");
        const second = await parkedOn("paid:1");
        const third = await parkedOn("paid:1");
        // Oldest first, each once; the third park finds none left and waits.
        expect((await store.getRun(first))!.status).toBe("pending");
        expect((await store.getSteps(first))[0]).toMatchObject({ status: "done", value: '{"n":1}' });
        expect((await store.getSteps(second))[0]).toMatchObject({ status: "done", value: '{"n":2}' });
        expect((await store.getRun(third))!.status).toBe("waiting");
        // A buffered signal that finds a waiting run wakes it and is not kept.
        expect(await store.signal("paid:1", '{"n":3}', 60_000)).toEqual({ woken: 1, buffered: false });
        expect((await store.getRun(await parkedOn("paid:1")))!.status).toBe("waiting");
        // Without a buffer, nothing is kept; an expired buffered signal is not taken.
        expect(await store.signal("plain", null)).toEqual({ woken: 0, buffered: false });
        expect((await store.getRun(await parkedOn("plain")))!.status).toBe("waiting");
        expect(await store.signal("brief", null, 1)).toEqual({ woken: 0, buffered: true });
        await delay(20);
        expect((await store.getRun(await parkedOn("brief")))!.status).toBe("waiting");
      });

      it("a buffered signal racing a waitFor that parks meets it exactly once (20 races)", async () => {
        await fresh();
        const runs: Array<{ id: string; token: number }> = [];
        for (let i = 0; i < 20; i++) await enqueue(store);
        for (const c of await store.claim({ workerId: "w", limit: 20, leaseMs: 30_000, workflows: WF }))
          runs.push({ id: c.run.id, token: c.token });
        expect(runs).toHaveLength(20);
        const outcomes = await Promise.all(
          runs.map(async (r, i) => {
            const event = `race:${i}`;
            const park = store.commit([
              {
                verb: "suspend",
                lease: { runId: r.id, token: r.token },
                steps: [{ key: event, kind: "wait", target: null, status: "pending", event, position: 0 }],
                children: [],
                wakeAfterMs: null,
                awaitChildren: false,
              },
            ]);
            const [sent] = await Promise.all([store.signal(event, String(i), 60_000), park]);
            return sent;
          }),
        );
        for (const [i, r] of runs.entries()) {
          expect((await store.getSteps(r.id))[0], `run ${i}`).toMatchObject({ status: "done", value: String(i) });
          expect((await store.getRun(r.id))!.status, `run ${i}`).toBe("pending");
        }
        // Each signal either woke its run or was buffered and taken: none is left over.
        expect(outcomes.every((o) => o.woken + (o.buffered ? 1 : 0) === 1)).toBe(true);
        for (let i = 0; i < 3; i++) expect((await store.getRun(await parkedOn(`race:${i}`)))!.status).toBe("waiting");
      });

      it("cancels a run and its unfinished descendants and fences the cancelled claim", async () => {
        await fresh();
        const { parentId, children } = await parentWithChildren(2);
        const [kid] = await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: WF });
        expect(await store.cancel(parentId, "operator said so")).toBe("cancelled");
        const parent = (await store.getRun(parentId))!;
        expect(parent).toMatchObject({ status: "cancelled", error: { message: "cancelled: operator said so" } });
        for (const c of children) expect((await store.getRun(c.id))!.status).toBe("cancelled");
        expect(
          await one(store, {
            verb: "complete",
            lease: { runId: kid!.run.id, token: kid!.token },
            outcome: { status: "succeeded", result: "1" },
          }),
        ).toEqual({ ok: false, fenced: true });
        expect(await store.cancel(parentId, null)).toBe("cancelled");
        expect(await store.cancel("no-such-run", null)).toBeNull();
      });
    });

    describe("approvals, caching and concurrency limits", () => {
      async function parkedOnApproval(deadlineMs: number | null = null) {
        const id = await enqueue(store, { createdBy: "alice" });
        const { lease } = await claimOne(store);
        await one(store, {
          verb: "suspend",
          lease,
          steps: [
            {
              key: "waitForApproval",
              kind: "approval",
              target: null,
              status: "pending",
              value: '{"form":null}',
              wakeAfterMs: deadlineMs,
              position: 0,
            },
          ],
          children: [],
          wakeAfterMs: deadlineMs,
          awaitChildren: false,
        });
        return id;
      }

      it("resolves a pending approval once, audits every attempt, and refuses late or repeated decisions", async () => {
        await fresh();
        const id = await parkedOnApproval();
        expect((await store.getRun(id))!.createdBy).toBe("alice");
        const decide = (actor: string, decision: string, key = "waitForApproval") =>
          store.resolveWait({
            runId: id,
            key,
            kind: "approval",
            value: JSON.stringify({ approved: decision === "approve", approver: actor }),
            audit: { actor, decision, via: "test" },
          });
        expect(
          await store.resolveWait({
            runId: id,
            key: "waitForApproval",
            kind: "approval",
            value: "null",
            creatorMayDecide: false,
            audit: { actor: "alice", decision: "approve", via: "test" },
          }),
        ).toBe("forbidden");
        expect(await decide("bob", "approve")).toBe("resolved");
        expect(await decide("carol", "reject")).toBe("already-decided");
        expect(await decide("bob", "approve", "nope")).toBe("not-found");
        expect(await store.resolveWait({ runId: "missing", key: "k", kind: "approval", value: null })).toBe(
          "not-found",
        );
        expect((await store.getRun(id))!.status).toBe("pending");
        const step = (await store.getSteps(id))[0]!;
        expect(step).toMatchObject({ status: "done", value: '{"approved":true,"approver":"bob"}' });
        await store.recordApprovalEvent({
          runId: id,
          stepKey: "waitForApproval",
          actor: "eve",
          decision: "approve",
          outcome: "invalid",
          via: "test",
        });
        const events = await store.listApprovalEvents(id);
        expect(events.map((e) => [e.actor, e.decision, e.outcome, e.via])).toEqual([
          ["alice", "approve", "forbidden", "test"],
          ["bob", "approve", "resolved", "test"],
          ["carol", "reject", "already-decided", "test"],
          ["bob", "approve", "not-found", "test"],
          ["eve", "approve", "invalid", "test"],
        ]);
      });

      it("refuses a decision after the approval's deadline", async () => {
        await fresh();
        const id = await parkedOnApproval(20);
        await delay(40);
        expect(await store.resolveWait({ runId: id, key: "waitForApproval", kind: "approval", value: "null" })).toBe(
          "expired",
        );
      });

      it("still calls a decision late after the timeout closed the approval (expired, not already-decided)", async () => {
        await fresh();
        const id = await parkedOnApproval(20);
        await delay(40);
        // The worker wakes at the deadline and records the timeout, as waitForApproval does.
        const { lease } = await claimOne(store);
        const timedOut = JSON.stringify({ value: null, approver: null, approved: false });
        expect(
          (
            await one(store, {
              verb: "saveSteps",
              lease,
              steps: [
                {
                  key: "waitForApproval",
                  kind: "approval",
                  target: null,
                  status: "done",
                  value: timedOut,
                  position: 0,
                },
              ],
            })
          ).ok,
        ).toBe(true);
        expect(
          await store.resolveWait({
            runId: id,
            key: "waitForApproval",
            kind: "approval",
            value: "null",
            audit: { actor: "bob", decision: "approve", via: "test" },
          }),
        ).toBe("expired");
        expect((await store.getSteps(id))[0]!.value).toBe(timedOut);
      });

      it("refuses a decision for a cancelled run", async () => {
        await fresh();
        const id = await parkedOnApproval();
        await store.cancel(id, null);
        expect(await store.resolveWait({ runId: id, key: "waitForApproval", kind: "approval", value: "null" })).toBe(
          "not-waiting",
        );
      });

      it("reanchorDueTimes leaves alone runs due later that the current clock wrote", async () => {
        await fresh();
        const later = (await store.now()) + 3_600_000;
        const id = await enqueue(store, { runAt: later });
        expect(await store.reanchorDueTimes()).toBe(0);
        expect((await store.getRun(id))!.readyAt).toBe(later);
      });

      it("probeWrite (the readiness write check) commits again and again, several probes at once too", async () => {
        await fresh();
        await expect(store.probeWrite()).resolves.toBeUndefined();
        await expect(Promise.all([store.probeWrite(), store.probeWrite(), store.probeWrite()])).resolves.toHaveLength(
          3,
        );
      });

      it("stores small records by key and lists them by prefix", async () => {
        await fresh();
        await store.kvPut("token:abc", '{"scope":"read"}');
        await store.kvPut("token:abd", '{"scope":"admin"}');
        await store.kvPut("token:abc", '{"scope":"operate"}');
        await store.kvPut("tokenx", "other");
        await store.kvPut("a%b", "literal");
        expect(await store.kvGet("token:abc")).toBe('{"scope":"operate"}');
        expect(await store.kvGet("missing")).toBeNull();
        expect((await store.kvList("token:")).map((r) => r.key)).toEqual(["token:abc", "token:abd"]);
        expect((await store.kvList("a%")).map((r) => r.key)).toEqual(["a%b"]);
        expect(await store.kvDelete("token:abc")).toBe(true);
        expect(await store.kvDelete("token:abc")).toBe(false);
        expect((await store.kvList("token:")).map((r) => r.key)).toEqual(["token:abd"]);
        // Compare-and-set: only one of two racing writers wins.
        expect(await store.kvSwap("join:x", null, "1")).toBe(true);
        const race = await Promise.all([store.kvSwap("join:x", "1", "2a"), store.kvSwap("join:x", "1", "2b")]);
        expect(race.filter(Boolean)).toHaveLength(1);
        expect(["2a", "2b"]).toContain(await store.kvGet("join:x"));
        expect(await store.kvSwap("join:x", "nope", null)).toBe(false);
        expect(await store.kvSwap("join:x", (await store.kvGet("join:x"))!, null)).toBe(true);
        expect(await store.kvGet("join:x")).toBeNull();
      });

      it("puts several records in one atomic write: all of them, or none when one is refused", async () => {
        await fresh();
        await store.kvPut("batch:b", "old");
        await store.kvPutAll([
          { key: "batch:a", value: "1" },
          { key: "batch:b", value: "2" },
          { key: "batch:a", value: "3" },
        ]);
        expect(await store.kvList("batch:")).toEqual([
          { key: "batch:a", value: "3" },
          { key: "batch:b", value: "2" },
        ]);
        await store.kvPutAll([]);
        // the database refuses the second record (a value must not be null): the first is not left behind
        const refused = [
          { key: "batch:c", value: "new" },
          { key: "batch:b", value: null as unknown as string },
        ];
        await expect(store.kvPutAll(refused)).rejects.toThrow();
        expect(await store.kvList("batch:")).toEqual([
          { key: "batch:a", value: "3" },
          { key: "batch:b", value: "2" },
        ]);
      });

      it("keeps the resume-link secret sealed: one per database, readable only with the secret key", async () => {
        await fresh();
        for (const k of ["sealed-secret:resume-links", "legacy-secret:resume-links"]) await store.kvDelete(k);
        const key = deriveSecretKey("a key of at least sixteen characters");
        const [a, b] = await Promise.all([loadResumeSecret(store, key), loadResumeSecret(store, key)]);
        expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(b).toBe(a);
        const stored = (await store.kvGet("sealed-secret:resume-links"))!;
        expect(stored).toMatch(/^sealed:v1:/);
        expect(stored).not.toContain(a);
        await expect(loadResumeSecret(store, deriveSecretKey("another key, also long enough"))).rejects.toMatchObject({
          code: "SECRET_KEY_MISMATCH",
        });
        // A plain secret an earlier version left (moved to legacy-secret: by the migration) is kept, sealed, and its plain copy deleted.
        await store.kvDelete("sealed-secret:resume-links");
        await store.kvPut("legacy-secret:resume-links", "old-plain-secret");
        expect(await loadResumeSecret(store, key)).toBe("old-plain-secret");
        expect(await store.kvGet("legacy-secret:resume-links")).toBeNull();
        expect(await store.kvGet("sealed-secret:resume-links")).not.toContain("old-plain-secret");
      });

      it("answers a task from the cache within its TTL instead of creating a child", async () => {
        await fresh();
        const parent = await enqueue(store);
        const { lease } = await claimOne(store);
        const child = (key: string): ChildSpec => ({
          ...req({ task: "double", cacheKey: "double:[2]" }),
          parentKey: key,
          cacheTtlMs: 60_000,
        });
        const first = child("double");
        await one(store, {
          verb: "suspend",
          lease,
          steps: [{ key: "double", kind: "task", target: "double", status: "pending", childId: first.id, position: 0 }],
          children: [first],
          wakeAfterMs: null,
          awaitChildren: true,
        });
        const [k] = await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: WF });
        await one(store, {
          verb: "complete",
          lease: { runId: k!.run.id, token: k!.token },
          outcome: { status: "succeeded", result: "4" },
        });
        const [resumed] = await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: WF });
        expect(resumed!.run.id).toBe(parent);
        const second = child("double#2");
        await one(store, {
          verb: "suspend",
          lease: { runId: parent, token: resumed!.token },
          steps: [
            { key: "double#2", kind: "task", target: "double", status: "pending", childId: second.id, position: 1 },
          ],
          children: [second],
          wakeAfterMs: null,
          awaitChildren: true,
        });
        expect(await store.getRun(second.id)).toBeNull();
        expect((await store.getRun(parent))!).toMatchObject({ status: "pending", outstanding: 0 });
        expect((await store.getSteps(parent)).find((s) => s.key === "double#2")).toMatchObject({
          status: "done",
          value: "4",
          childId: first.id,
        });
      });

      it("never claims more than a concurrency key's limit, across claims and within a window", async () => {
        await fresh();
        const limited = { key: "api", limit: 2, windowMs: null };
        for (let i = 0; i < 5; i++) await enqueue(store, { concurrency: limited });
        await enqueue(store);
        const first = await store.claim({ workerId: "w1", limit: 10, leaseMs: 30_000, workflows: WF });
        expect(first.filter((c) => c.run.concurrency?.key === "api")).toHaveLength(2);
        expect(first).toHaveLength(3);
        expect(await store.claim({ workerId: "w2", limit: 10, leaseMs: 30_000, workflows: WF })).toEqual([]);
        const done = first.find((c) => c.run.concurrency)!;
        await one(store, {
          verb: "complete",
          lease: { runId: done.run.id, token: done.token },
          outcome: { status: "succeeded", result: null },
        });
        expect(await store.claim({ workerId: "w2", limit: 10, leaseMs: 30_000, workflows: WF })).toHaveLength(1);

        const windowed = { key: "burst", limit: 2, windowMs: 60_000 };
        for (let i = 0; i < 3; i++) await enqueue(store, { concurrency: windowed, workflow: "other" });
        const burst = await store.claim({ workerId: "w3", limit: 10, leaseMs: 30_000, workflows: ["other"] });
        expect(burst).toHaveLength(2);
        for (const b of burst)
          await one(store, {
            verb: "complete",
            lease: { runId: b.run.id, token: b.token },
            outcome: { status: "succeeded", result: null },
          });
        // Finished, but both started within the window: the third must wait for the window to pass.
        expect(await store.claim({ workerId: "w3", limit: 10, leaseMs: 30_000, workflows: ["other"] })).toEqual([]);
      });

      it("a claim takes older runs of a key it just filled past the runs that key now blocks", async () => {
        await fresh();
        const one1 = { key: "solo", limit: 1, windowMs: null };
        const keyed = [];
        for (let i = 0; i < 3; i++) keyed.push(await enqueue(store, { concurrency: one1 }));
        const free = [await enqueue(store), await enqueue(store)];
        // The first two candidates in age order are both "solo": the second is blocked by the first.
        const claimed = await store.claim({ workerId: "w1", limit: 3, leaseMs: 30_000, workflows: WF });
        expect(claimed.map((c) => c.run.id)).toEqual([keyed[0], ...free]);
        expect(await store.claim({ workerId: "w2", limit: 3, leaseMs: 30_000, workflows: WF })).toEqual([]);
      });
    });

    describe("releases", () => {
      const manifest = (bundle: string, file = "f/a.ts") =>
        JSON.stringify({
          format: RELEASE_FORMAT,
          files: [{ path: file, hash: `h-${bundle}`, bytes: 10 }],
          modules: [{ path: file, language: "typescript", bundle, workflows: ["f/a"] }],
          workflows: [
            {
              name: "f/a",
              version: bundle,
              queue: "default",
              maxAttempts: 3,
              backoff: { base: 1000, max: 3_600_000 },
              source: file,
              schedule: null,
            },
          ],
          pipelines: [],
        });
      const changes = JSON.stringify({
        files: { added: ["f/a.ts"], changed: [], removed: [] },
        workflows: { added: ["f/a"], changed: [], removed: [] },
        schedules: { added: [], changed: [], removed: [] },
        triggers: { added: [], changed: [], removed: [] },
      });

      it("publishes numbered releases with their blobs; the newest is current", async () => {
        await fresh();
        expect(await store.currentReleaseId()).toBeNull();
        expect(await store.listReleases(10)).toEqual([]);
        expect(await store.getRelease(1)).toBeNull();
        const first = await store.publishRelease({
          manifest: manifest("b1"),
          changes,
          createdBy: "ana",
          rollbackOf: null,
          expectedCurrent: null,
          blobs: [
            { hash: "b1", code: "export const x = 1" },
            { hash: "src:h-b1", code: "source 1" },
          ],
        });
        expect(first).toMatchObject({ ok: true, id: 1 });
        expect(await store.getBundle("b1")).toBe("export const x = 1");
        expect(await store.getBundle("src:h-b1")).toBe("source 1");
        const second = await store.publishRelease({
          manifest: manifest("b2"),
          changes,
          createdBy: "bo",
          rollbackOf: 1,
          expectedCurrent: 1,
          blobs: [{ hash: "b2", code: "export const x = 2" }],
        });
        expect(second).toMatchObject({ ok: true, id: 2 });
        expect(await store.currentReleaseId()).toBe(2);
        const list = await store.listReleases(10);
        expect(list.map((r) => [r.id, r.createdBy, r.rollbackOf])).toEqual([
          [2, "bo", 1],
          [1, "ana", null],
        ]);
        expect(list[0]).not.toHaveProperty("manifest");
        expect(list[1]!.changes.workflows.added).toEqual(["f/a"]);
        expect((await store.listReleases(1)).map((r) => r.id)).toEqual([2]);
        const got = await store.getRelease(1);
        expect(got!.manifest.modules[0]!.bundle).toBe("b1");
        expect(got!.createdAt).toBe(first.ok ? first.createdAt : -1);
        expect(await store.releaseBundles()).toEqual([
          { id: 1, createdAt: expect.any(Number), bundles: ["b1"] },
          { id: 2, createdAt: expect.any(Number), bundles: ["b2"] },
        ]);
      });

      it("refuses a release diffed against a release that is no longer current, writing nothing", async () => {
        await fresh();
        await store.publishRelease({
          manifest: manifest("b1"),
          changes,
          createdBy: null,
          rollbackOf: null,
          expectedCurrent: null,
          blobs: [],
        });
        const stale = await store.publishRelease({
          manifest: manifest("b3"),
          changes,
          createdBy: null,
          rollbackOf: null,
          expectedCurrent: null,
          blobs: [{ hash: "b3", code: "never" }],
        });
        expect(stale).toEqual({ ok: false, current: 1 });
        expect(await store.getBundle("b3")).toBeNull();
        expect(await store.currentReleaseId()).toBe(1);
      });

      it("lets exactly one of two racing deploys publish", async () => {
        await fresh();
        const race = await Promise.all(
          ["x1", "x2"].map((b) =>
            store.publishRelease({
              manifest: manifest(b),
              changes,
              createdBy: null,
              rollbackOf: null,
              expectedCurrent: null,
              blobs: [],
            }),
          ),
        );
        expect(race.filter((r) => r.ok)).toHaveLength(1);
        expect(await store.currentReleaseId()).toBe(1);
      });
    });
    describe("logs, retention, registry and schedules", () => {
      it("appends and pages logs in order", async () => {
        await fresh();
        const id = await enqueue(store);
        const now = await store.now();
        await one(store, {
          verb: "appendLogs",
          lines: ["a", "b", "c"].map((m, i) => ({
            runId: id,
            stepKey: i === 1 ? "s" : null,
            attempt: 1,
            level: "info" as const,
            message: m,
            ts: now + i,
          })),
        });
        const logs = await store.getLogs(id);
        expect(logs.map((l) => [l.message, l.stepKey])).toEqual([
          ["a", null],
          ["b", "s"],
          ["c", null],
        ]);
        expect((await store.getLogs(id, logs[1]!.seq)).map((l) => l.message)).toEqual(["c"]);
      });

      it("fences log lines: a stale claim's lines are dropped, the current claim's (before its completion) and unclaimed lines kept", async () => {
        await fresh();
        const id = await enqueue(store);
        const first = await claimOne(store, 1);
        await delay(15);
        await store.reclaimExpired(10, () => 0);
        const second = await claimOne(store);
        const line = (message: string, token?: number) => ({
          runId: id,
          stepKey: null,
          attempt: 1,
          level: "info" as const,
          message,
          ts: 0,
          ...(token !== undefined && { token }),
        });
        const [stale] = await store.commit([
          {
            verb: "appendLogs",
            lines: [line("stale", first.lease.token), line("current", second.lease.token), line("engine")],
          },
        ]);
        expect(stale).toEqual({ ok: true });
        await store.commit([
          { verb: "appendLogs", lines: [line("last words", second.lease.token)] },
          { verb: "complete", lease: second.lease, outcome: { status: "succeeded", result: null } },
        ]);
        await one(store, { verb: "appendLogs", lines: [line("after the end", second.lease.token)] });
        expect((await store.getLogs(id)).map((l) => l.message)).toEqual(["current", "engine", "last words"]);
      });

      it("keeps a step's recorded start time, so its duration is the body's", async () => {
        await fresh();
        await enqueue(store);
        const { lease } = await claimOne(store);
        const began = (await store.now()) - 8_000;
        await one(store, {
          verb: "saveSteps",
          lease,
          steps: [
            { key: "slow", kind: "step", target: null, status: "done", value: "1", position: 0, startedAt: began },
          ],
        });
        const [slow] = await store.getSteps(lease.runId);
        expect(slow!.startedAt).toBe(began);
        expect(slow!.finishedAt! - slow!.startedAt).toBeGreaterThanOrEqual(8_000);
      });

      it("deletes finished runs in batches with their steps and logs, freeing the id, and keeps unfinished ones", async () => {
        await fresh();
        for (let i = 0; i < 5; i++) {
          const id = await enqueue(store, { id: `done-${i}`, dedupe: true });
          const { lease } = await claimOne(store);
          expect(lease.runId).toBe(id);
          await store.commit([
            {
              verb: "saveSteps",
              lease,
              steps: [{ key: "s", kind: "step", target: null, status: "done", value: "1", position: 0 }],
            },
            {
              verb: "appendLogs",
              lines: [{ runId: id, stepKey: null, attempt: 1, level: "info", message: "x", ts: 0 }],
            },
            { verb: "complete", lease, outcome: { status: "succeeded", result: null } },
          ]);
        }
        await store.recordApprovalEvent({
          runId: "done-0",
          stepKey: "gate",
          actor: "eve",
          decision: "approve",
          outcome: "not-waiting",
          via: "test",
        });
        const alive = await enqueue(store);
        const cutoff = (await store.now()) + 1;
        expect(await store.deleteFinished(cutoff, 2)).toBe(2);
        expect(await store.deleteFinished(cutoff, 2)).toBe(2);
        expect(await store.deleteFinished(cutoff, 2)).toBe(1);
        expect(await store.deleteFinished(cutoff, 2)).toBe(0);
        expect(await store.getRun(alive)).not.toBeNull();
        expect(await store.getSteps("done-0")).toEqual([]);
        expect(await store.getLogs("done-0")).toEqual([]);
        const again = await one(store, {
          verb: "enqueue",
          request: req({ id: "done-0", dedupe: true, payload: '"new"' }),
        });
        expect(again).toEqual({ ok: true, enqueued: { id: "done-0", deduplicated: false } });
        // The reused id starts with no audit history of the deleted run.
        expect(await store.listApprovalEvents("done-0")).toEqual([]);
      });

      it("registers again as given: an unchanged row stays, any changed field, a cleared one or a removed workflow is written", async () => {
        await fresh();
        const wf = {
          name: "wf",
          version: "v1",
          queue: "default",
          maxAttempts: 3,
          backoff: { base: 1000, max: 3_600_000 },
          source: "workflows/wf.ts",
          schedule: { cron: "0 * * * *", timezone: "UTC" },
          params: { names: ["a"], required: [] },
        };
        const stored = async () => (await store.listWorkflows()).find((w) => w.name === "wf");
        await store.registerWorkflows([wf]);
        await store.registerWorkflows([wf]);
        expect(await stored()).toMatchObject(wf);
        for (const changed of [
          { ...wf, queue: "email" },
          { ...wf, maxAttempts: 5 },
          { ...wf, backoff: { base: 10, max: 3_600_000 } },
          { ...wf, schedule: null },
          { ...wf, params: undefined },
          { ...wf, version: "v2" },
        ]) {
          await store.registerWorkflows([changed]);
          const row = await stored();
          expect([
            row?.queue,
            row?.maxAttempts,
            row?.backoff,
            row?.schedule ?? null,
            row?.params ?? null,
            row?.version,
          ]).toEqual([
            changed.queue,
            changed.maxAttempts,
            changed.backoff,
            changed.schedule ?? null,
            changed.params ?? null,
            changed.version,
          ]);
        }
        await store.removeWorkflows(["wf"]);
        expect((await store.getWorkflow("wf"))?.removedAt).toBeGreaterThan(0);
        // Registered again exactly as it was before its removal: published again.
        await store.registerWorkflows([{ ...wf, version: "v2", params: undefined }]);
        expect((await store.getWorkflow("wf"))?.removedAt ?? null).toBeNull();
      });

      it("stores workflows, pins a run's version at its first claim, and keeps bundles by hash", async () => {
        await fresh();
        await store.registerWorkflows([
          {
            name: "wf",
            version: "v1",
            queue: "default",
            maxAttempts: 3,
            backoff: { base: 1000, max: 3_600_000 },
            source: "workflows/wf.ts",
            schedule: null,
          },
        ]);
        await store.putBundle("v1", "export default 1");
        await store.putBundle("v1", "ignored");
        expect(await store.getBundle("v1")).toBe("export default 1");
        expect(await store.getBundle("nope")).toBeNull();
        const id = await enqueue(store);
        const first = await claimOne(store, 1);
        await store.registerWorkflows([
          {
            name: "wf",
            version: "v2",
            queue: "default",
            maxAttempts: 3,
            backoff: { base: 1000, max: 3_600_000 },
            source: "workflows/wf.ts",
            schedule: null,
          },
        ]);
        await delay(10);
        await store.reclaimExpired(10, () => 0);
        const [again] = await store.claim({ workerId: "w", limit: 1, leaseMs: 1000, workflows: WF });
        expect(first.lease.runId).toBe(id);
        expect(again!.run.version).toBe("v1");
        expect((await store.listWorkflows()).map((w) => [w.name, w.version])).toEqual([["wf", "v2"]]);
      });

      it("keeps a workflow's parameters, and marks removed workflows: not listed, still found by name, restored by publishing", async () => {
        await fresh();
        const info = (name: string, params: { names: string[]; required: string[] } | null = null) => ({
          name,
          version: "v1",
          queue: "default",
          maxAttempts: 3,
          backoff: { base: 1000, max: 3_600_000 },
          source: `f/${name}.ts`,
          schedule: null,
          params,
        });
        await store.registerWorkflows([
          info("etl", { names: ["baseUrl", "pages"], required: ["baseUrl"] }),
          info("plain"),
        ]);
        expect(await store.getWorkflow("etl")).toMatchObject({
          name: "etl",
          params: { names: ["baseUrl", "pages"], required: ["baseUrl"] },
          removedAt: null,
        });
        expect((await store.getWorkflow("plain"))!.params).toBeNull();
        expect(await store.getWorkflow("never")).toBeNull();
        await store.removeWorkflows(["etl", "never"]);
        expect((await store.listWorkflows()).map((w) => w.name)).toEqual(["plain"]);
        const removed = await store.getWorkflow("etl");
        expect(removed).toMatchObject({ name: "etl", source: "f/etl.ts" });
        expect(removed!.removedAt).toEqual(expect.any(Number));
        await store.registerWorkflows([info("etl", { names: ["baseUrl"], required: [] })]);
        expect((await store.listWorkflows()).map((w) => [w.name, w.removedAt, w.params])).toEqual([
          ["etl", null, { names: ["baseUrl"], required: [] }],
          ["plain", null, null],
        ]);
      });

      it("lets one holder lead a name at a time; a resignation frees it at once", async () => {
        await fresh();
        expect(await store.lead("scheduler", "a", 10_000)).toBe(true);
        expect(await store.lead("scheduler", "b", 10_000)).toBe(false);
        expect(await store.lead("scheduler", "a", 10_000)).toBe(true);
        expect(await store.lead("retention", "b", 10_000)).toBe(true);
        await store.resign("scheduler", "b");
        expect(await store.lead("scheduler", "b", 10_000)).toBe(false);
        await store.resign("scheduler", "a");
        expect(await store.lead("scheduler", "b", 10_000)).toBe(true);
        expect(await store.lead("scheduler", "a", 10_000)).toBe(false);
      });

      it("fires a schedule tick once even when two schedulers race", async () => {
        await fresh();
        const now = await store.now();
        await store.syncSchedules([{ workflow: "wf", cron: "* * * * *", timezone: "UTC", nextAt: now - 1 }]);
        const tick = (id: string) =>
          store.fireSchedule({
            workflow: "wf",
            expectedNextAt: now - 1,
            nextAt: now + 60_000,
            run: req({ id, dedupe: true }),
          });
        const results = await Promise.all([tick("cron:wf:1"), tick("cron:wf:1")]);
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.countRuns({ workflow: "wf" })).toBe(1);
        const [sched] = await store.listSchedules();
        expect(sched).toMatchObject({ workflow: "wf", nextAt: now + 60_000, lastFiredAt: now - 1 });
        expect(await store.setSchedulePaused("wf", true)).toBe(true);
        expect(
          await store.fireSchedule({
            workflow: "wf",
            expectedNextAt: now + 60_000,
            nextAt: now + 120_000,
            run: req({ id: "cron:wf:2", dedupe: true }),
          }),
        ).toBe(false);
        expect((await store.listSchedules())[0]!.paused).toBe(true);
        expect(await store.setSchedulePaused("wf", false)).toBe(true);
        expect(await store.setSchedulePaused("nope", false)).toBe(false);
        await store.syncSchedules([{ workflow: "wf", cron: "* * * * *", timezone: "UTC", nextAt: 1 }]);
        expect((await store.listSchedules())[0]!.nextAt).toBe(now + 60_000);
        await store.syncSchedules([]);
        expect(await store.listSchedules()).toEqual([]);
      });

      it("replaces only the owner's schedules: a deploy leaves a process's (external worker's) alone", async () => {
        await fresh();
        const now = await store.now();
        const at = (workflow: string, cron = "* * * * *") => ({ workflow, cron, timezone: "UTC", nextAt: now + 1_000 });
        await store.syncSchedules([at("go-report"), at("shared")], "process");
        await store.syncSchedules([at("deployed"), at("shared")], "release");
        const owners = async () =>
          Object.fromEntries((await store.listSchedules()).map((s) => [s.workflow, [s.owner, s.cron, s.nextAt]]));
        // "shared" changed hands (same cron: its next tick stays).
        expect(await owners()).toEqual({
          "go-report": ["process", "* * * * *", now + 1_000],
          deployed: ["release", "* * * * *", now + 1_000],
          shared: ["release", "* * * * *", now + 1_000],
        });
        // A release without any schedule removes its own only.
        await store.syncSchedules([], "release");
        expect(await owners()).toEqual({ "go-report": ["process", "* * * * *", now + 1_000] });
        // A process sync leaves the release's alone, and the default owner is the process.
        await store.syncSchedules([at("deployed", "0 * * * *")], "release");
        await store.syncSchedules([]);
        expect(await owners()).toEqual({ deployed: ["release", "0 * * * *", now + 1_000] });
      });
    });
  });
}
