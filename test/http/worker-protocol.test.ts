/**
 * The worker protocol in-process (`app.request`) on a real SQLite engine without a
 * worker of its own (as `sluice server --workers none`): an external worker's view.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createEngine, defineWorkflow, type Engine } from "../../src/index.js";
import { createApp, type SluiceApp } from "../../src/http/app.js";
import { ApiTokens } from "../../src/http/auth/tokens.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/store.js";
import { delay, eventually, tempDir } from "../helpers/tmp.js";

let engine: Engine;
let store: SqliteStore;
let app: SluiceApp;
let worker: string;
let operate: string;

beforeAll(async () => {
  const dir = tempDir("sluice-proto-");
  store = openSqliteStore({ path: join(dir, "sluice.db"), pollMs: 20 });
  engine = createEngine({ store, worker: false, scheduler: { tickMs: 50 } });
  await engine.start();
  app = createApp({ engine, auth: { mode: "tokens" }, uiDir: null });
  const t = new ApiTokens(store);
  worker = (await t.create({ name: "go-worker", scope: "worker" })).token;
  operate = (await t.create({ name: "olivia", scope: "operate" })).token;
  const reg = await call("/api/worker/workflows", {
    workflows: [
      { name: "order", group: "go", maxAttempts: 2, backoff: { base: 10, max: 20 } },
      { name: "once", maxAttempts: 1 },
      { name: "tick", schedule: "0 3 * * *" },
    ],
  });
  expect(reg.status).toBe(200);
});
afterAll(async () => {
  await engine?.stop({ drainMs: 100 });
  await store?.close();
});

async function call(path: string, body: unknown, token = worker): Promise<Response> {
  return app.request(path, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}
async function json(path: string, body: unknown, token = worker): Promise<{ status: number; body: any }> {
  const res = await call(path, body, token);
  return { status: res.status, body: await res.json() };
}
const enqueue = async (workflow: string, payload: unknown = {}) =>
  (await json("/api/runs", { workflow, payload }, worker)).body.run.id as string;
const claim = async (workflows: string[], waitMs = 2_000, extra: Record<string, unknown> = {}) =>
  (await json("/api/worker/claim", { workerId: "test-worker", workflows, waitMs, ...extra })).body.claims as any[];

type MetricValue = { labels: Record<string, string | number>; value: number; metricName?: string };
/** The engine's own metric values of `name` for `workflow`. */
async function metricValues(name: string, workflow: string): Promise<MetricValue[]> {
  const metric = (await engine.metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  return ((metric?.values ?? []) as MetricValue[]).filter((v) => v.labels.workflow === workflow);
}
/** `sluice_run_queue_wait_seconds` for `workflow`: observation count and sum (seconds). */
async function queueWait(workflow: string): Promise<{ count: number; sum: number }> {
  const values = await metricValues("sluice_run_queue_wait_seconds", workflow);
  const of = (suffix: string) => values.find((v) => v.metricName === `sluice_run_queue_wait_seconds_${suffix}`)?.value;
  return { count: of("count") ?? 0, sum: of("sum") ?? 0 };
}
async function claimToStartCount(workflow: string): Promise<number> {
  const values = await metricValues("sluice_run_claim_to_start_seconds", workflow);
  return values.find((v) => v.metricName === "sluice_run_claim_to_start_seconds_count")?.value ?? 0;
}

describe("worker protocol", () => {
  it("registers workflows: listed, enqueueable, cron scheduled", async () => {
    const list = (await store.listWorkflows()).map((w) => [w.name, w.queue, w.maxAttempts]);
    expect(list).toEqual(
      expect.arrayContaining([
        ["order", "go", 2],
        ["once", "default", 1],
        ["tick", "default", 3],
      ]),
    );
    expect((await store.listSchedules()).map((s) => s.workflow)).toContain("tick");
  });

  it("the server publishing its own workflows (a hot reload) keeps the external ones and their cron", async () => {
    await engine.register(defineWorkflow("in-process", { schedule: "0 4 * * *", handler: async () => "x" }));
    expect((await store.listSchedules()).map((s) => s.workflow).sort()).toEqual(["in-process", "tick"]);
    expect((await store.listWorkflows()).map((w) => w.name)).toEqual(
      expect.arrayContaining(["in-process", "order", "once", "tick"]),
    );
  });

  it("a waiting claim gets a new run within milliseconds of its enqueue", async () => {
    const pending = claim(["order"], 5_000);
    await delay(100);
    const t0 = performance.now();
    const id = await enqueue("order", { orderId: "o1" });
    const [c] = await pending;
    const ms = performance.now() - t0;
    expect(c).toMatchObject({
      runId: id,
      workflow: "order",
      payload: { orderId: "o1" },
      attempt: 1,
      maxAttempts: 2,
      steps: [],
    });
    expect(c.token).toBeGreaterThan(0);
    expect(ms).toBeLessThan(300);
    // Handed over in the enqueue's own commit: due and claimed at the same instant.
    expect(c.dueAt).toBe(c.claimedAt);
    // finish it so it does not linger
    expect((await json(`/api/worker/runs/${id}/finish`, { token: c.token, outcome: "succeeded" })).status).toBe(200);
  });

  it("checkpoints steps, parks on a sleep, replays the journal on the next claim, succeeds", async () => {
    const id = await enqueue("order", { orderId: "o2" });
    const [c1] = await claim(["order"]);
    expect(c1.runId).toBe(id);
    const saved = await json(`/api/worker/runs/${id}/steps`, {
      token: c1.token,
      steps: [{ key: "charge", kind: "step", status: "done", position: 0, value: { paid: 42 }, attempts: 1 }],
    });
    expect(saved).toEqual({ status: 200, body: { saved: ["charge"] } });
    const hb = await json("/api/worker/heartbeat", { leases: [{ runId: id, token: c1.token }], leaseMs: 30_000 });
    expect(hb.body).toEqual({ lost: [] });
    const parked = await json(`/api/worker/runs/${id}/park`, {
      token: c1.token,
      steps: [{ key: "nap", kind: "sleep", status: "pending", position: 1, wakeAfterMs: 150 }],
      wakeAfterMs: 150,
    });
    expect(parked.status).toBe(200);
    expect((await store.getRun(id))!.status).toBe("waiting");
    const t0 = Date.now();
    const [c2] = await claim(["order"], 3_000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
    expect(c2.runId).toBe(id);
    expect(c2.token).toBeGreaterThan(c1.token);
    expect(c2.steps.map((s: any) => [s.key, s.kind, s.status, s.value])).toEqual([
      ["charge", "step", "done", { paid: 42 }],
      ["nap", "sleep", "pending", null],
    ]);
    expect(c2.steps[1].wakeAt).toBeLessThanOrEqual(c2.claimedAt);
    await json(`/api/worker/runs/${id}/steps`, {
      token: c2.token,
      steps: [{ key: "nap", kind: "sleep", status: "done", position: 1 }],
    });
    const logs = await json(`/api/worker/runs/${id}/logs`, {
      token: c2.token,
      attempt: 1,
      lines: [{ level: "info", message: "shipped", stepKey: "ship" }],
    });
    expect(logs.body).toEqual({ accepted: 1 });
    const fin = await json(`/api/worker/runs/${id}/finish`, {
      token: c2.token,
      outcome: "succeeded",
      result: { ok: true },
    });
    expect(fin.body).toEqual({ status: "succeeded" });
    const run = (await store.getRun(id))!;
    expect(run.status).toBe("succeeded");
    expect(JSON.parse(run.result!)).toEqual({ ok: true });
    expect((await store.getSteps(id)).map((s) => [s.key, s.status])).toEqual([
      ["charge", "done"],
      ["nap", "done"],
    ]);
    expect((await store.getLogs(id)).map((l) => l.message)).toEqual(["shipped"]);
  });

  it("log lines keep the time each was logged (ts); a line with a bad ts or level is refused alone, naming it, and the others are stored", async () => {
    const id = await enqueue("once");
    const [c] = await claim(["once"]);
    const first = c.claimedAt + 5;
    const ok = await json(`/api/worker/runs/${id}/logs`, {
      token: c.token,
      attempt: 1,
      lines: [
        { level: "info", message: "first", ts: first },
        { level: "info", message: "second", ts: first + 3_000 },
      ],
    });
    expect(ok).toEqual({ status: 200, body: { accepted: 2 } });
    for (const [line, why] of [
      [{ ts: "soon" }, /"lines\[1\]\.ts" must be when the line was logged, in epoch milliseconds .*got "soon"/],
      [{ ts: 1.5 }, /"lines\[1\]\.ts" must be when the line was logged/],
      [{ ts: -1 }, /"lines\[1\]\.ts" must be when the line was logged/],
      [{ ts: Date.now() + 3_600_000 }, /"lines\[1\]\.ts" is \d+ ms ahead of the server's clock/],
      [{ level: "loud" }, /"lines\[1\]\.level" must be one of debug, info, warn, error; got "loud"/],
    ] as const) {
      const bad = await json(`/api/worker/runs/${id}/logs`, {
        token: c.token,
        attempt: 1,
        lines: [
          { level: "info", message: "fine", ts: first },
          { level: "info", message: "bad", ...line },
          { level: "info", message: "also fine", ts: first + 1 },
        ],
      });
      expect(bad.status, JSON.stringify(bad.body)).toBe(200);
      expect(bad.body.accepted).toBe(2);
      expect(bad.body.refused).toEqual([{ line: 1, code: "INVALID_LINE", message: expect.stringMatching(why) }]);
    }
    expect((await store.getLogs(id)).filter((l) => l.message === "bad")).toEqual([]);
    expect((await store.getLogs(id)).filter((l) => l.message.endsWith("fine"))).toHaveLength(10);
    // A body wrong as a whole is still refused.
    const whole = await json(`/api/worker/runs/${id}/logs`, { token: c.token, lines: "nope" });
    expect(whole.status).toBe(400);
    expect(whole.body.error.code).toBe("INVALID_BODY");
    // A worker that sends no ts (older SDKs): the time the server received the line.
    const before = Date.now();
    await json(`/api/worker/runs/${id}/logs`, { token: c.token, attempt: 1, lines: [{ message: "untimed" }] });
    const logs = await store.getLogs(id);
    const told = logs.filter((l) => !l.message.endsWith("fine"));
    expect(told.map((l) => [l.message, l.ts])).toEqual([
      ["first", first],
      ["second", first + 3_000],
      ["untimed", expect.any(Number)],
    ]);
    expect(told[2]!.ts).toBeGreaterThanOrEqual(before);
    await json(`/api/worker/runs/${id}/finish`, { token: c.token, outcome: "succeeded" });
  });

  it("a stale fencing token is refused with 409 LEASE_LOST and writes nothing", async () => {
    const id = await enqueue("order", { orderId: "o3" });
    const [c] = await claim(["order"]);
    const stale = await json(`/api/worker/runs/${id}/steps`, {
      token: c.token + 1,
      steps: [{ key: "x", kind: "step", status: "done", position: 0, value: 1 }],
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("LEASE_LOST");
    expect(await store.getSteps(id)).toEqual([]);
    expect((await json(`/api/worker/runs/${id}/finish`, { token: c.token, outcome: "succeeded" })).status).toBe(200);
    // The same finish again: the claim is over, so it is refused too.
    const again = await json(`/api/worker/runs/${id}/finish`, {
      token: c.token,
      outcome: "failed",
      error: { message: "late" },
    });
    expect(again.status).toBe(409);
    expect((await store.getRun(id))!.status).toBe("succeeded");
  });

  it("a lease that expired is reclaimed: the old claim's heartbeat and writes are refused", async () => {
    const id = await enqueue("order", { orderId: "o4" });
    const [c1] = await claim(["order"], 2_000, { leaseMs: 1_000 });
    await delay(1_200);
    const [c2] = await claim(["order"], 8_000);
    expect(c2.runId).toBe(id);
    expect(c2.attempt).toBe(2);
    const hb = await json("/api/worker/heartbeat", {
      leases: [
        { runId: id, token: c1.token },
        { runId: id, token: c2.token },
      ],
    });
    expect(hb.body.lost).toEqual([id]);
    const late = await json(`/api/worker/runs/${id}/park`, { token: c1.token, wakeAfterMs: 10 });
    expect(late.body.error.code).toBe("LEASE_LOST");
    expect((await json(`/api/worker/runs/${id}/finish`, { token: c2.token, outcome: "succeeded" })).body.status).toBe(
      "succeeded",
    );
  });

  it("waitFor: a signal resolves the parked wait; the journal carries its value", async () => {
    const id = await enqueue("order", { orderId: "o5" });
    const [c1] = await claim(["order"]);
    await json(`/api/worker/runs/${id}/park`, {
      token: c1.token,
      steps: [{ key: "approval:o5", kind: "wait", status: "pending", position: 0, wakeAfterMs: 60_000 }],
      wakeAfterMs: 60_000,
    });
    const pending = claim(["order"], 5_000);
    await delay(50);
    const s = await json("/api/signals", { event: "approval:o5", payload: { approved: true } }, operate);
    expect(s.body.woke).toBe(1);
    const [c2] = await pending;
    expect(c2.steps).toEqual([
      expect.objectContaining({
        key: "approval:o5",
        kind: "wait",
        status: "done",
        value: { approved: true },
        event: "approval:o5",
      }),
    ]);
    await json(`/api/worker/runs/${id}/finish`, { token: c2.token, outcome: "cancelled", reason: "not needed" });
    expect((await store.getRun(id))!.status).toBe("cancelled");
  });

  it("an approval step parks the run; the API lists and decides it; a request without a timeout is refused", async () => {
    const id = await enqueue("order", { orderId: "o6" });
    const [c1] = await claim(["order"]);
    const bad = await json(`/api/worker/runs/${id}/park`, {
      token: c1.token,
      steps: [{ key: "waitForApproval", kind: "approval", status: "pending", position: 0, value: { form: null } }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/timeout/);
    const form = { reason: { type: "string" } };
    const parked = await json(`/api/worker/runs/${id}/park`, {
      token: c1.token,
      steps: [
        {
          key: "waitForApproval",
          kind: "approval",
          status: "pending",
          position: 0,
          value: { form, selfApproval: true, timeout: 60 },
          wakeAfterMs: 60_000,
        },
      ],
      wakeAfterMs: 60_000,
    });
    expect(parked.status).toBe(200);
    const shown = (await (
      await app.request(`/api/runs/${id}`, { headers: { authorization: `Bearer ${operate}` } })
    ).json()) as { approvals: unknown[] };
    expect(shown.approvals).toEqual([
      expect.objectContaining({
        key: "waitForApproval",
        form: expect.objectContaining({ properties: form }),
        timeoutSeconds: 60,
        selfApproval: true,
      }),
    ]);
    const pending = claim(["order"], 5_000);
    await delay(50);
    const decided = await json(
      `/api/runs/${id}/approvals/waitForApproval`,
      { approve: true, value: { reason: "ok" } },
      operate,
    );
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    const [c2] = await pending;
    expect(c2.steps).toEqual([
      expect.objectContaining({
        key: "waitForApproval",
        kind: "approval",
        status: "done",
        value: { value: { reason: "ok" }, approver: "olivia", approved: true },
      }),
    ]);
    await json(`/api/worker/runs/${id}/finish`, { token: c2.token, outcome: "succeeded", result: null });
  });

  it("waitFor with a timeout: the run wakes at the deadline with the wait still pending", async () => {
    const id = await enqueue("order", { orderId: "o6" });
    const [c1] = await claim(["order"]);
    await json(`/api/worker/runs/${id}/park`, {
      token: c1.token,
      steps: [{ key: "never", kind: "wait", status: "pending", position: 0, wakeAfterMs: 100 }],
      wakeAfterMs: 100,
    });
    const [c2] = await claim(["order"], 3_000);
    expect(c2.steps[0]).toMatchObject({ key: "never", status: "pending" });
    expect(c2.steps[0].wakeAt).toBeLessThanOrEqual(c2.claimedAt);
    await json(`/api/worker/runs/${id}/finish`, { token: c2.token, outcome: "succeeded" });
  });

  it("retry uses the run's backoff and attempts; the last attempt's retry fails the run", async () => {
    const id = await enqueue("order", { orderId: "o7" });
    const [c1] = await claim(["order"]);
    const r1 = await json(`/api/worker/runs/${id}/finish`, {
      token: c1.token,
      outcome: "retry",
      error: { message: "card declined", code: "DECLINED" },
    });
    expect(r1.body.status).toBe("pending");
    expect(r1.body.retryInMs).toBeGreaterThanOrEqual(8);
    expect(r1.body.retryInMs).toBeLessThanOrEqual(20);
    const [c2] = await claim(["order"]);
    expect(c2.attempt).toBe(2);
    const r2 = await json(`/api/worker/runs/${id}/finish`, {
      token: c2.token,
      outcome: "retry",
      error: { message: "card declined again" },
    });
    expect(r2.body.status).toBe("failed");
    const run = (await store.getRun(id))!;
    expect(run.status).toBe("failed");
    expect(run.error?.message).toBe("card declined again");
  });

  it("a claim says when its run became due; the server records the run's queue wait for it", async () => {
    const before = await queueWait("once");
    const id = await enqueue("once");
    await delay(600);
    const [c] = await claim(["once"]);
    expect(c.runId).toBe(id);
    const run = (await store.getRun(id))!;
    expect(c.dueAt).toBe(run.createdAt); // enqueued without runAt: due at its enqueue
    expect(c.claimedAt - c.dueAt).toBeGreaterThanOrEqual(550);
    const after = await queueWait("once");
    expect(after.count - before.count).toBe(1);
    const waited = after.sum - before.sum;
    expect(waited).toBeCloseTo((c.claimedAt - c.dueAt) / 1000, 3);
    // Not the built-in worker's own part: the server never sees an external worker start a run.
    expect(await claimToStartCount("once")).toBe(0);
    expect((await json(`/api/worker/runs/${id}/finish`, { token: c.token, outcome: "succeeded" })).status).toBe(200);
  });

  it("fail ends the run at once", async () => {
    const id = await enqueue("once");
    const [c] = await claim(["once"]);
    await json(`/api/worker/runs/${id}/finish`, {
      token: c.token,
      outcome: "failed",
      error: { message: "permanent", code: "BAD_ORDER" },
    });
    expect((await store.getRun(id))!.error).toMatchObject({ message: "permanent", code: "BAD_ORDER" });
  });

  it("claims only the named workflows and groups; an empty long-poll returns [] after waitMs", async () => {
    const t0 = Date.now();
    expect(await claim(["nobody"], 200)).toEqual([]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(180);
    const id = await enqueue("order");
    expect(await claim(["order"], 0, { groups: ["default"] })).toEqual([]);
    const [c] = await claim(["order"], 0, { groups: ["go"] });
    expect(c.runId).toBe(id);
    await json(`/api/worker/runs/${id}/finish`, { token: c.token, outcome: "succeeded" });
  });

  it("an empty long-poll still ends after waitMs when the wall clock jumps back an hour meanwhile", async () => {
    // The jump is a replaced Date.now (the machine's clock cannot be changed here); monotonic time is not.
    const realNow = Date.now.bind(Date);
    const pending = claim(["nobody"], 300);
    await delay(50);
    const jumped = vi.spyOn(Date, "now").mockImplementation(() => realNow() - 3_600_000);
    try {
      // Before, the deadline was wall-clock time: the poll would have waited an hour more.
      expect(await Promise.race([pending, delay(3_000).then(() => "still waiting")])).toEqual([]);
    } finally {
      jumped.mockRestore();
    }
  });

  it("refuses bad input with a named error, and other scopes", async () => {
    const noToken = await json("/api/worker/runs/x/steps", { steps: [] });
    expect(noToken).toMatchObject({ status: 400, body: { error: { code: "INVALID_BODY" } } });
    expect(noToken.body.error.message).toMatch(/"token" is required/);
    const badKind = await json("/api/worker/runs/x/steps", {
      token: 1,
      steps: [{ key: "a", kind: "task", status: "done", position: 0 }],
    });
    expect(badKind.body.error.message).toMatch(/steps\[0\]\.kind" must be one of step, sleep, wait/);
    const badClaim = await json("/api/worker/claim", { workerId: "w", workflows: [] });
    expect(badClaim.status).toBe(400);
    const badCron = await json("/api/worker/workflows", { workflows: [{ name: "x", schedule: "every day" }] });
    expect(badCron.status).toBe(400);
    const scope = await json("/api/worker/claim", { workerId: "w", workflows: ["order"] }, operate);
    expect(scope).toMatchObject({ status: 403, body: { error: { code: "AUTH_SCOPE" } } });
    const badLevel = await json("/api/worker/runs/x/logs", { token: 1, lines: [{ level: "loud", message: "x" }] });
    // Refused alone (the request's other lines would be stored).
    expect(badLevel.body.refused[0].message).toMatch(/"lines\[0\]\.level" must be one of debug, info, warn, error/);
    const finished = await json("/api/worker/runs/nope/finish", { token: 1, outcome: "succeeded" });
    expect(finished).toMatchObject({ status: 404, body: { error: { code: "RUN_NOT_FOUND" } } });
  });

  it("a claim whose client hung up returns without claiming", async () => {
    const ac = new AbortController();
    const res = app.request("/api/worker/claim", {
      method: "POST",
      headers: { authorization: `Bearer ${worker}`, "content-type": "application/json" },
      body: JSON.stringify({ workerId: "gone", workflows: ["once"], waitMs: 10_000 }),
      signal: ac.signal,
    });
    await delay(50);
    ac.abort();
    const t0 = Date.now();
    await Promise.resolve(res).catch(() => null);
    expect(Date.now() - t0).toBeLessThan(1_000);
    const id = await enqueue("once");
    await delay(100);
    expect((await store.getRun(id))!.status).toBe("pending");
    const [c] = await claim(["once"]);
    await json(`/api/worker/runs/${id}/finish`, { token: c.token, outcome: "succeeded" });
    await eventually(async () => (await store.getRun(id))!.status === "succeeded");
  });
});
