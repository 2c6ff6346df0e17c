import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTerminal } from "../../src/store/types.js";
import { eventually } from "../helpers/tmp.js";
import { startHarness, type HttpHarness } from "./harness.js";
import { readSse } from "./sse.js";

let h: HttpHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const json = async (r: Response) => (await r.json()) as any;

describe("enqueue", () => {
  it("creates a run as the token's identity and returns 201 with the run", async () => {
    const r = await h.call("POST", "/api/runs", {
      token: h.tokens.operate,
      body: { workflow: "hello", payload: { name: "api" } },
    });
    expect(r.status).toBe(201);
    const body = await json(r);
    expect(body.deduplicated).toBe(false);
    expect(body.run).toMatchObject({ workflow: "hello", createdBy: "olivia", payload: { name: "api" } });
    const done = await h.waitFor(body.run.id, (x) => isTerminal(x.status));
    expect(done.status).toBe("succeeded");
  });

  it("honours Idempotency-Key: the same key and body return the same run (200), another body is a 409", async () => {
    const headers = { "idempotency-key": "order-42" };
    const first = await h.call("POST", "/api/runs", {
      token: h.tokens.operate,
      headers,
      body: { workflow: "hello", payload: { name: "k" } },
    });
    const again = await h.call("POST", "/api/runs", {
      token: h.tokens.operate,
      headers,
      body: { workflow: "hello", payload: { name: "k" } },
    });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect((await json(first)).run.id).toBe("order-42");
    expect(await json(again)).toMatchObject({ deduplicated: true, run: { id: "order-42" } });
    const other = await h.call("POST", "/api/runs", {
      token: h.tokens.operate,
      headers,
      body: { workflow: "hello", payload: { name: "other" } },
    });
    expect(other.status).toBe(409);
    expect((await json(other)).error.code).toBe("RUN_ID_CONFLICT");
  });

  it("takes id, runAt, retries and priority, and explains bad input", async () => {
    const runAt = new Date(Date.now() + 3_600_000).toISOString();
    const r = await h.call("POST", "/api/runs", {
      token: h.tokens.operate,
      body: { workflow: "hello", id: "later-1", runAt, retries: 5, priority: 7 },
    });
    expect(r.status).toBe(201);
    const run = (await json(r)).run;
    expect(run).toMatchObject({ id: "later-1", status: "pending", maxAttempts: 6, priority: 7, readyAt: runAt });
    const cases: Array<[unknown, number, RegExp]> = [
      [{}, 400, /"workflow" is required/],
      [{ workflow: "nope" }, 404, /unknown workflow "nope"; known workflows: .*hello/],
      [{ workflow: "hello", retries: -1 }, 400, /"retries" must be a whole number/],
      [{ workflow: "hello", runAt: "soon" }, 400, /"runAt" must be an ISO time/],
      [{ workflow: "hello", payloda: {} }, 400, /unknown field "payloda"/],
      [[1, 2], 400, /must be a JSON object/],
    ];
    for (const [body, status, message] of cases) {
      const res = await h.call("POST", "/api/runs", { token: h.tokens.operate, body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect((await json(res)).error.message).toMatch(message);
    }
    const both = await h.call("POST", "/api/runs", {
      token: h.tokens.operate,
      headers: { "idempotency-key": "a" },
      body: { workflow: "hello", id: "b" },
    });
    expect(both.status).toBe(400);
  });
});

describe("list", () => {
  it("filters by status, workflow, time and parent, and pages with a cursor", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await h.start("hello", { name: `p${i}` })).id);
    const page1 = await json(
      await h.call("GET", "/api/runs?workflow=hello&status=succeeded&limit=2", { token: h.tokens.read }),
    );
    expect(page1.runs).toHaveLength(2);
    expect(page1.runs.map((r: any) => r.id)).toEqual([ids[4], ids[3]]);
    const page2 = await json(
      await h.call("GET", `/api/runs?workflow=hello&status=succeeded&limit=2&cursor=${page1.nextCursor}`, {
        token: h.tokens.read,
      }),
    );
    expect(page2.runs.map((r: any) => r.id)).toEqual([ids[2], ids[1]]);
    expect(page2.runs[0].seq).toBeLessThan(page1.runs[1].seq);
    const all: string[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const p: any = await json(
        await h.call("GET", `/api/runs?workflow=hello&limit=3${cursor ? `&cursor=${cursor}` : ""}`, {
          token: h.tokens.read,
        }),
      );
      all.push(...p.runs.map((r: any) => r.id));
      cursor = p.nextCursor;
    }
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(expect.arrayContaining(ids));
    const pending = await json(await h.call("GET", "/api/runs?status=pending,waiting", { token: h.tokens.read }));
    expect(pending.runs.every((r: any) => ["pending", "waiting"].includes(r.status))).toBe(true);
    const future = await json(
      await h.call("GET", `/api/runs?createdAfter=${Date.now() + 60_000}`, { token: h.tokens.read }),
    );
    expect(future.runs).toEqual([]);
    const before = await json(
      await h.call("GET", `/api/runs?createdBefore=2000-01-01T00:00:00Z`, { token: h.tokens.read }),
    );
    expect(before.runs).toEqual([]);
    for (const bad of ["status=nope", "limit=0", "limit=x", "cursor=abc", "createdAfter=yesterday"]) {
      expect((await h.call("GET", `/api/runs?${bad}`, { token: h.tokens.read })).status, bad).toBe(400);
    }
  });

  it("takes Tako's status names: ?status=dead lists failed runs, without renaming the status", async () => {
    const fixed = (globalThis as any).__sluiceFixed;
    (globalThis as any).__sluiceFixed = false;
    try {
      const failed = await h.start("fails", {});
      const ok = await h.start("hello", { name: "alive" });
      expect([failed.status, ok.status]).toEqual(["failed", "succeeded"]);
      const dead = await json(await h.call("GET", "/api/runs?status=dead&limit=500", { token: h.tokens.read }));
      const deadIds = dead.runs.map((r: any) => r.id);
      expect(deadIds).toContain(failed.id);
      expect(deadIds).not.toContain(ok.id);
      expect(dead.runs.every((r: any) => r.status === "failed")).toBe(true);
      const both = await json(
        await h.call("GET", "/api/runs?status=dead,succeeded&limit=500", { token: h.tokens.read }),
      );
      expect(both.runs.map((r: any) => r.id)).toEqual(expect.arrayContaining([failed.id, ok.id]));
      const bad = await h.call("GET", "/api/runs?status=zombie", { token: h.tokens.read });
      expect(bad.status).toBe(400);
      expect((await json(bad)).error).toMatchObject({
        code: "INVALID_STATUS",
        message: expect.stringMatching(/unknown status "zombie" for "status": use .*dead \(= failed\)/),
      });
    } finally {
      (globalThis as any).__sluiceFixed = fixed;
    }
  });

  it("topLevel leaves out child tasks; parent lists a run's children", async () => {
    const gate = await h.start("f/open_gate", {}, { until: (r) => r.status === "waiting" });
    await h.call("POST", `/api/runs/${gate.id}/approvals/waitForApproval`, {
      token: h.tokens.operate,
      body: { approve: true },
    });
    await h.waitFor(gate.id, (r) => r.status === "succeeded");
    const top = await json(await h.call("GET", "/api/runs?topLevel=true&limit=500", { token: h.tokens.read }));
    expect(top.runs.every((r: any) => r.parentId === null)).toBe(true);
    expect(top.runs.some((r: any) => r.id === gate.id)).toBe(true);
  });
});

describe("run detail, cancel, retry, signal", () => {
  it("returns steps, children, attempts, result and error", async () => {
    const run = await h.start("hello", { name: "detail" });
    const d = await json(await h.call("GET", `/api/runs/${encodeURIComponent(run.id)}`, { token: h.tokens.read }));
    expect(d.run).toMatchObject({
      id: run.id,
      status: "succeeded",
      attempt: 1,
      maxAttempts: 3,
      result: { text: "hello detail" },
      error: null,
    });
    expect(d.run.durationMs).toBeGreaterThanOrEqual(0);
    expect(d.steps).toEqual([
      expect.objectContaining({ key: "greet", kind: "step", status: "done", value: "hello detail", attempts: 1 }),
    ]);
    expect(d).toMatchObject({ children: [], childrenTruncated: false, approvals: [], approvalEvents: [] });
    const missing = await h.call("GET", "/api/runs/nope", { token: h.tokens.read });
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe("RUN_NOT_FOUND");
  });

  it("serves run ids with slashes and other reserved characters", async () => {
    const id = "orders/2026 #1?x=y";
    const r = await h.call("POST", "/api/runs", { token: h.tokens.operate, body: { workflow: "hello", id } });
    expect(r.status).toBe(201);
    await h.waitFor(id, (x) => isTerminal(x.status));
    const d = await json(await h.call("GET", `/api/runs/${encodeURIComponent(id)}`, { token: h.tokens.read }));
    expect(d.run.id).toBe(id);
  });

  it("cancels an unfinished run (409 once finished) and retries a failed one (409 otherwise)", async () => {
    const waiting = await h.start("waiter", {}, { until: (r) => r.status === "waiting" });
    const c1 = await h.call("POST", `/api/runs/${waiting.id}/cancel`, {
      token: h.tokens.operate,
      body: { reason: "changed my mind" },
    });
    expect(c1.status).toBe(200);
    expect(await json(c1)).toEqual({ id: waiting.id, status: "cancelled" });
    expect((await h.store.getRun(waiting.id))!.error?.message).toMatch(/changed my mind/);
    const c2 = await h.call("POST", `/api/runs/${waiting.id}/cancel`, { token: h.tokens.operate });
    expect(c2.status).toBe(409);
    expect((await json(c2)).error.code).toBe("RUN_FINISHED");

    const failed = await h.start("fails", {});
    expect(failed.status).toBe("failed");
    const d = await json(await h.call("GET", `/api/runs/${failed.id}`, { token: h.tokens.operate }));
    expect(d.run.error).toMatchObject({ name: "Error", message: "boom" });
    expect(d.run.error.stack).toMatch(/boom/);
    (globalThis as any).__sluiceFixed = true;
    const retried = await h.call("POST", `/api/runs/${failed.id}/retry`, { token: h.tokens.operate });
    expect(retried.status).toBe(200);
    expect((await json(retried)).status).toBe("pending");
    const after = await h.waitFor(failed.id, (r) => isTerminal(r.status));
    expect(after.status).toBe("succeeded");
    const again = await h.call("POST", `/api/runs/${failed.id}/retry`, { token: h.tokens.operate });
    expect(again.status).toBe(409);
    expect((await json(again)).error.code).toBe("RUN_NOT_RETRYABLE");
    expect((await h.call("POST", "/api/runs/nope/retry", { token: h.tokens.operate })).status).toBe(404);
    expect((await h.call("POST", "/api/runs/nope/cancel", { token: h.tokens.operate })).status).toBe(404);
  });

  it("sends a signal that wakes waiting runs", async () => {
    const w = await h.start("waiter", {}, { until: (r) => r.status === "waiting" });
    const r = await h.call("POST", "/api/signals", {
      token: h.tokens.operate,
      body: { event: "go", payload: { n: 1 } },
    });
    expect(await json(r)).toEqual({ event: "go", woke: 1, buffered: false });
    const done = await h.waitFor(w.id, (x) => isTerminal(x.status));
    expect(JSON.parse(done.result!)).toEqual({ n: 1 });
    expect((await h.call("POST", "/api/signals", { token: h.tokens.operate, body: {} })).status).toBe(400);
    const bad = await h.call("POST", "/api/signals", { token: h.tokens.operate, body: { event: "go", buffer: true } });
    expect(bad.status).toBe(400);
    expect(
      (await h.call("POST", "/api/signals", { token: h.tokens.operate, body: { event: "go", buffer: "-1" } })).status,
    ).toBe(400);
  });

  it("keeps a buffered signal sent before the run waits, and the run's waitFor takes it", async () => {
    const r = await h.call("POST", "/api/signals", {
      token: h.tokens.operate,
      body: { event: "go", payload: { early: true }, buffer: "1h" },
    });
    expect(await json(r)).toEqual({ event: "go", woke: 0, buffered: true });
    const w = await h.start("waiter", {}, { until: (x) => isTerminal(x.status) });
    expect(JSON.parse(w.result!)).toEqual({ early: true });
  });
});

describe("logs", () => {
  it("returns log lines after a cursor", async () => {
    const run = await h.start("hello", { name: "logs" });
    const all = await json(await h.call("GET", `/api/runs/${run.id}/logs`, { token: h.tokens.read }));
    expect(all.logs.map((l: any) => [l.step, l.message])).toEqual([["greet", "greeting logs"]]);
    expect(all.finished).toBe(true);
    const none = await json(
      await h.call("GET", `/api/runs/${run.id}/logs?after=${all.nextAfter}`, { token: h.tokens.read }),
    );
    expect(none.logs).toEqual([]);
    expect((await h.call("GET", `/api/runs/${run.id}/logs?after=x`, { token: h.tokens.read })).status).toBe(400);
  });

  it("children=true interleaves the lines of the run's child runs, each naming its run", async () => {
    const run = await h.start("f/tasks", {});
    expect(run.status).toBe("succeeded");
    const own = await json(await h.call("GET", `/api/runs/${run.id}/logs`, { token: h.tokens.read }));
    expect(own.logs.map((l: any) => l.message)).toEqual(["begin"]);
    const tree = await json(await h.call("GET", `/api/runs/${run.id}/logs?children=true`, { token: h.tokens.read }));
    expect(tree.logs.map((l: any) => l.message)).toEqual(["begin", "shouting a", "shouting b"]);
    expect(new Set(tree.logs.map((l: any) => l.runId)).size).toBe(3);
    const events = await readSse(
      await h.call("GET", `/api/runs/${run.id}/logs/stream?children=true`, { token: h.tokens.read }),
      (evs) => evs.some((e) => e.event === "end"),
      5000,
    );
    expect(events.filter((e) => e.event === "log").map((e) => JSON.parse(e.data).message)).toEqual([
      "begin",
      "shouting a",
      "shouting b",
    ]);
  });

  it("streams lines with Server-Sent Events while the run runs, then ends", async () => {
    const handle = await h.engine.enqueueRun("slow", { ms: 600 });
    await h.waitFor(handle.id, (r) => r.status !== "pending");
    const res = await h.call("GET", `/api/runs/${handle.id}/logs/stream`, { token: h.tokens.read });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    const events = await readSse(res, (evs) => evs.some((e) => e.event === "end"), 10_000);
    const logs = events.filter((e) => e.event === "log").map((e) => JSON.parse(e.data).message);
    expect(logs).toEqual(["first line", "second line"]);
    expect(events.filter((e) => e.event === "log").map((e) => e.id)).toEqual(
      events.filter((e) => e.event === "log").map((e) => String(JSON.parse(e.data).seq)),
    );
    expect(JSON.parse(events.at(-1)!.data)).toEqual({ status: "succeeded" });
    // Resuming after the first line (Last-Event-ID) sends only the rest.
    const first = events.find((e) => e.event === "log")!;
    const resumed = await readSse(
      await h.call("GET", `/api/runs/${handle.id}/logs/stream`, {
        token: h.tokens.read,
        headers: { "last-event-id": first.id! },
      }),
      (evs) => evs.some((e) => e.event === "end"),
      5000,
    );
    expect(resumed.filter((e) => e.event === "log").map((e) => JSON.parse(e.data).message)).toEqual(["second line"]);
    expect((await h.call("GET", "/api/runs/nope/logs/stream", { token: h.tokens.read })).status).toBe(404);
  });

  it("streams change events, and a closed stream unsubscribes", async () => {
    const before = h.app.deps.feed.size;
    const res = await h.call("GET", "/api/events", { token: h.tokens.read });
    const reading = readSse(
      res,
      (evs) => evs.some((e) => e.event === "change" && JSON.parse(e.data).runs.length > 0),
      10_000,
    );
    await eventually(() => h.app.deps.feed.size > before, 5000);
    await h.call("POST", "/api/runs", { token: h.tokens.operate, body: { workflow: "hello" } });
    const events = await reading;
    expect(events[0]!.event).toBe("ready");
    await eventually(() => h.app.deps.feed.size === before, 5000);
  });
});
