/**
 * The overview page in real headless Chromium against a real engine (SQLite file,
 * embedded worker) and the real HTTP server: totals and charts after a known workload,
 * the hour/day switch, the slowest workflows, the runs waiting for approval with their
 * trace links (through the trace URL template), and the trace on the run's page.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { startHttpServer, type HttpServer } from "../../src/http/server.js";
import { createEngine, type Engine } from "../../src/index.js";
import { Project } from "../../src/loader/project.js";
import { makeProject } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";
import { type Browser, launch, skipReason } from "./browser.js";

const skip = skipReason();
const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

const FILES = {
  "workflows/ok.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("ok", { handler: async (_p, ctx) => ctx.run("one", () => 1) });`,
  "workflows/boom.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("boom", { retries: 0, handler: async () => { throw new Error("kaput"); } });`,
  "f/gate.ts": `import { waitForApproval, workflow } from "windmill-client";
export const main = workflow(async () => waitForApproval({ timeout: 3600 }));`,
};

describe.skipIf(skip !== null)(`overview page in headless Chromium${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let engine: Engine;
  let http: HttpServer;
  let browser: Browser;
  let url: string;
  let root: string;
  let gate: string;

  const status = async (id: string) => (await engine.store.getRun(id))!.status;

  beforeAll(async () => {
    root = makeProject(FILES, "sluice-e2e-overview-");
    let app: ReturnType<typeof createApp> | null = null;
    http = await startHttpServer((req, env) => app!.fetch(req, env), { port: 0 });
    url = http.url;
    engine = createEngine({
      database: join(root, ".sluice", "sluice.db"),
      baseUrl: url,
      worker: { pollMs: 50 },
      scheduler: false,
    });
    await engine.start();
    const report = await new Project(root, engine).loadAll();
    if (report.errors.length) throw new Error(report.errors.map((e) => e.error.message).join("\n"));
    app = createApp({
      engine,
      auth: { mode: "off", user: "erin" },
      projectRoot: root,
      traceUrl: "https://jaeger.example/trace/{traceId}",
    });
    const ids = [
      (await engine.enqueueRun("ok", {})).id,
      (await engine.enqueueRun("ok", {})).id,
      (await engine.enqueueRun("boom", {})).id,
    ];
    gate = (await engine.enqueueRun("f/gate", {})).id;
    await eventually(async () => {
      for (const id of ids) if (!["succeeded", "failed"].includes(await status(id))) return false;
      return (await status(gate)) === "waiting";
    }, 20_000);
    // The tracing side stores the W3C traceparent in the run's options at enqueue; written here
    // with SQL because this test is about showing it.
    const db = new Database(join(root, ".sluice", "sluice.db"));
    db.prepare("UPDATE runs SET options = ? WHERE id = ?").run(
      JSON.stringify({ traceparent: `00-${TRACE}-00f067aa0ba902b7-01` }),
      gate,
    );
    db.close();
    browser = await launch();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await http?.close();
    await engine?.stop({ drainMs: 1000 });
  });

  it("shows totals and three charts for the last hour and the last day", async () => {
    const { page } = browser;
    await page.goto(`${url}/overview`);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await page.locator('[data-testid="total-finished"]').waitFor();
    expect(await page.locator('[data-testid="total-finished"]').innerText()).toBe("3");
    expect(await page.locator('[data-testid="total-failed"]').innerText()).toBe("1");
    expect(await page.locator('[data-testid="queued-now"]').innerText()).toBe("0");
    for (const chart of ["chart-throughput", "chart-failures", "chart-queue"])
      await page.locator(`[data-testid="${chart}"] svg.recharts-surface`).waitFor({ timeout: 10_000 });
    // The finished runs draw bars of non-zero height in the throughput and failures charts.
    const tallBars = (chart: string) =>
      page
        .locator(`[data-testid="${chart}"] .recharts-bar-rectangle path`)
        .evaluateAll((els) => els.filter((e) => e.getBoundingClientRect().height > 0).length);
    expect(await tallBars("chart-throughput")).toBeGreaterThanOrEqual(1);
    expect(await tallBars("chart-failures")).toBeGreaterThanOrEqual(1);
    await browser.shot("overview-hour");
    const day = page.waitForResponse((r) => r.url().includes("/api/overview?window=1d") && r.status() === 200);
    await page.getByRole("button", { name: "Last day" }).click();
    await day;
    expect(await page.getByRole("button", { name: "Last day" }).getAttribute("aria-pressed")).toBe("true");
    await page.locator('[data-testid="total-finished"]').waitFor();
    expect(await page.locator('[data-testid="total-finished"]').innerText()).toBe("3");
    await page.locator('[data-testid="chart-throughput"] svg.recharts-surface').waitFor();
    await browser.shot("overview-day");
    expect(browser.errors).toEqual([]);
  });

  it("lists the slowest workflows and the run waiting for approval with its trace link", async () => {
    const { page } = browser;
    await page.goto(`${url}/overview`);
    const slowest = page.locator('[data-testid="slowest"] tbody tr');
    await slowest.first().waitFor();
    const names = await slowest.locator("td:first-child").allInnerTexts();
    expect(names.sort()).toEqual(["boom", "ok"]);
    const row = page.locator('[data-testid="approvals"] tbody tr');
    expect(await row.count()).toBe(1);
    expect(await row.locator(`a[href="/runs/${gate}"]`).count()).toBe(1);
    const link = row.locator('[data-testid="trace-link"]');
    expect(await link.getAttribute("href")).toBe(`https://jaeger.example/trace/${TRACE}`);
    expect(await link.getAttribute("title")).toBe(TRACE);
    // The run's own page shows the same trace.
    await row.locator(`a[href="/runs/${gate}"]`).click();
    await page.waitForURL(new RegExp(`/runs/${gate}$`));
    const onRun = page.locator('.facts [data-testid="trace-link"]');
    await onRun.waitFor();
    expect(await onRun.getAttribute("href")).toBe(`https://jaeger.example/trace/${TRACE}`);
    await browser.shot("run-page-trace");
    expect(browser.errors).toEqual([]);
  });
});
