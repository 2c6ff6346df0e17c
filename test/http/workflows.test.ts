import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type HttpHarness } from "./harness.js";

let h: HttpHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const get = async (path: string) => {
  const res = await h.call("GET", path, { token: h.tokens.read });
  return { status: res.status, body: (await res.json()) as any };
};

describe("workflows", () => {
  it("lists published workflows with their latest top-level run", async () => {
    const run = await h.start("hello", { name: "w" });
    const { body } = await get("/api/workflows");
    const names = body.workflows.map((w: any) => w.name);
    expect(names).toEqual(
      expect.arrayContaining(["hello", "slow", "fails", "waiter", "nightly", "f/gate", "f/open_gate"]),
    );
    const hello = body.workflows.find((w: any) => w.name === "hello");
    expect(hello).toMatchObject({
      source: "workflows/hello.ts",
      maxAttempts: 3,
      lastRun: { id: run.id, status: "succeeded" },
    });
    expect(body.workflows.find((w: any) => w.name === "nightly").schedule).toEqual({
      cron: "0 3 * * *",
      timezone: "UTC",
    });
  });

  it("gives success rate, p50/p95 duration and recent runs", async () => {
    for (let i = 0; i < 3; i++) await h.start("hello", { name: `s${i}` });
    delete (globalThis as any).__sluiceFixed;
    await h.start("fails", {});
    const { body } = await get("/api/workflows/hello");
    expect(body.workflow.name).toBe("hello");
    expect(body.stats.succeeded).toBeGreaterThanOrEqual(3);
    expect(body.stats.successRate).toBe(1);
    expect(body.stats.p50DurationMs).toBeGreaterThanOrEqual(0);
    expect(body.stats.p95DurationMs).toBeGreaterThanOrEqual(body.stats.p50DurationMs);
    expect(body.recentRuns.length).toBeGreaterThanOrEqual(3);
    expect(body.recentRuns.every((r: any) => r.workflow === "hello" && r.parentId === null)).toBe(true);
    const fails = (await get("/api/workflows/fails")).body.stats;
    expect(fails).toMatchObject({ failed: 1, successRate: 0 });
    const missing = await get("/api/workflows/nope");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("UNKNOWN_WORKFLOW");
  });

  it("serves the diagram parsed from the source, with keys matching the run's steps", async () => {
    const { status, body } = await get(`/api/workflows/${encodeURIComponent("f/gate")}/diagram`);
    expect(status).toBe(200);
    expect(body.file).toBe("f/gate.ts");
    expect(body.source).toContain("waitForApproval");
    const keys = body.diagram.nodes.filter((n: any) => n.key).map((n: any) => [n.kind, n.key]);
    expect(keys).toEqual([
      ["step", "urls"],
      ["approval", "waitForApproval"],
    ]);
    const tako = await get("/api/workflows/slow/diagram");
    expect(tako.body.diagram.nodes.filter((n: any) => n.key).map((n: any) => n.key)).toEqual([
      "first",
      "pause",
      "second",
    ]);
  });
});

describe("schedules", () => {
  it("lists schedules with their next fire times, and pauses and resumes them", async () => {
    const { body } = await get("/api/schedules");
    const nightly = body.schedules.find((s: any) => s.workflow === "nightly");
    expect(nightly).toMatchObject({ cron: "0 3 * * *", timezone: "UTC", paused: false, owner: "process" });
    expect(nightly.upcoming).toHaveLength(5);
    expect(nightly.upcoming[0]).toBe(nightly.nextAt);
    expect(new Date(nightly.upcoming[1]).getTime() - new Date(nightly.upcoming[0]).getTime()).toBe(86_400_000);
    const paused = (await (
      await h.call("POST", "/api/schedules/nightly/pause", { token: h.tokens.operate })
    ).json()) as any;
    expect(paused.schedule).toMatchObject({ paused: true, upcoming: [] });
    expect((await h.store.listSchedules()).find((s) => s.workflow === "nightly")!.paused).toBe(true);
    const resumed = (await (
      await h.call("POST", "/api/schedules/nightly/resume", { token: h.tokens.operate })
    ).json()) as any;
    expect(resumed.schedule.paused).toBe(false);
    const none = await h.call("POST", "/api/schedules/hello/pause", { token: h.tokens.operate });
    expect(none.status).toBe(404);
  });
});

describe("meta", () => {
  it("serves health and the OpenAPI document without a token", async () => {
    expect(await (await h.call("GET", "/api/health")).json()).toEqual({ ok: true, store: "sqlite" });
    const doc = (await (await h.call("GET", "/api/openapi.json")).json()) as any;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.paths["/api/runs"].post["x-sluice-scope"]).toBe("operate");
    const refs = JSON.stringify(doc).match(/#\/components\/schemas\/\w+/g) ?? [];
    for (const ref of new Set(refs)) expect(doc.components.schemas, ref).toHaveProperty(ref.split("/").pop()!);
  });

  it("without a built UI, page paths say how to build it", async () => {
    const res = await h.call("GET", "/runs/abc");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("npm run build");
  });
});
