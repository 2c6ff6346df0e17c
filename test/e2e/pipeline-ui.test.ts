/**
 * The pipeline page in headless Chromium: the Quickstart's graph, "Run + downstream" on
 * ingest with the cascade turning transform green live, and an asset's partitions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { startHttpServer, type HttpServer } from "../../src/http/server.js";
import { BACKFILL_WORKFLOW, type BackfillPayload } from "../../src/pipeline/runtime/backfill-workflow.js";
import { eventually } from "../helpers/tmp.js";
import { startPipelines, type PipelineProject } from "../pipeline/harness.js";
import { type Browser, launch, skipReason } from "./browser.js";

const skip = skipReason();

/** A chain of six scripts, each reading the previous one's asset: a graph far wider than a laptop screen. */
const WIDE = Object.fromEntries(
  [1, 2, 3, 4, 5, 6].map((n) => [
    `f/wide/step${n}.ts`,
    `// pipeline
${n === 1 ? "" : `// on s3://wide/out${n - 1}.json\n`}import * as wmill from 'windmill-client';
export async function main() {
	await wmill.writeS3File({ s3: 'wide/out${n}.json' }, '[]');
}
`,
  ]),
);

const FILES = {
  ...WIDE,
  "f/hooks/pipeline.json": JSON.stringify({
    triggers: { nightly: { schedule: { cron: "0 3 * * *", timezone: "UTC" } }, receive: { webhook: true } },
  }),
  "f/hooks/nightly.ts": `// pipeline
// on schedule
export async function main() {}
`,
  "f/hooks/receive.ts": `// pipeline
// on webhook
export async function main(n: number) { return n; }
`,
  "f/demo/ingest.ts": `// pipeline
// on schedule
import * as wmill from 'windmill-client';
export async function main() {
	await wmill.writeS3File({ s3: 'demo/raw.json' }, JSON.stringify([{ n: 1 }, { n: 2 }]));
}
`,
  "f/demo/transform.ts": `// pipeline
// on s3://demo/raw.json
import * as wmill from 'windmill-client';
export async function main() {
	const rows = JSON.parse(await wmill.loadS3File({ s3: 'demo/raw.json' }));
	await new Promise((r) => setTimeout(r, 300));
	await wmill.writeS3File({ s3: 'demo/sum.json' }, JSON.stringify({ sum: rows.length }));
}
`,
  "f/deb/write.ts": `// pipeline
import * as wmill from 'windmill-client';
export async function main() {
	await wmill.writeS3File({ s3: 'deb/x.json' }, '[]');
}
`,
  "f/deb/later.ts": `// pipeline
// on s3://deb/x.json
// debounce 1h
export async function main() {}
`,
  "f/slow/nap.ts": `// pipeline
export async function main(partition: string) {
	await new Promise((r) => setTimeout(r, 400));
	return partition;
}
`,
};

describe.skipIf(skip !== null)(`pipeline page in headless Chromium${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let p: PipelineProject;
  let http: HttpServer;
  let browser: Browser;

  beforeAll(async () => {
    p = await startPipelines(FILES);
    const app = createApp({
      engine: p.engine,
      pipelines: p.pipelines,
      auth: { mode: "off", user: "erin" },
      projectRoot: p.root,
    });
    http = await startHttpServer((req, env) => app.fetch(req, env), { port: 0 });
    browser = await launch();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await http?.close();
    await p?.close();
  });

  it("shows the graph, runs a step with its downstream live, and lists an asset's writes", async () => {
    const { page } = browser;
    await page.goto(`${http.url}/pipelines`);
    await page.locator('tr[data-pipeline="f/demo"] a').click();
    await page.waitForURL(/\/pipelines\/f\/demo$/);
    const graph = page.getByRole("region", { name: "Pipeline graph" });
    await graph.locator('[data-node="script:f/demo/ingest.ts"]').waitFor();
    await graph.locator('[data-node="asset:s3://demo/raw.json"]').waitFor();
    expect(await graph.locator('[data-node="trigger:schedule:f/demo/ingest.ts"]').innerText()).toContain(
      "schedule (not configured)",
    );
    await graph.locator('[data-node="script:f/demo/ingest.ts"]').click();
    await page.getByRole("button", { name: "Run + downstream" }).click();
    await page.getByRole("status").getByText("Started the step").waitFor();
    await graph
      .locator('[data-node="script:f/demo/transform.ts"][data-status="succeeded"]')
      .waitFor({ timeout: 15_000 });
    await browser.shot("pipeline-page");
    await graph.locator('[data-node="asset:s3://demo/sum.json"]').click();
    await page.getByRole("table", { name: "Partitions" }).getByText("transform.ts").waitFor({ timeout: 10_000 });
    await page
      .getByRole("region", { name: "Dispatch decisions" })
      .locator('tr[data-outcome="dispatched"]')
      .first()
      .waitFor();
    expect(browser.errors).toEqual([]);
  });

  it("shows the time in a debounce decision's reason as the UI shows times, not as ISO text", async () => {
    const h = await p.pipelines.runScript("f/deb/write", {});
    await h.result({ timeoutMs: 15_000 });
    const { page } = browser;
    await page.goto(`${http.url}/pipelines/f/deb`);
    const row = page
      .getByRole("region", { name: "Dispatch decisions" })
      .locator('tr[data-outcome="debounce-scheduled"]');
    await row.waitFor({ timeout: 10_000 });
    const why = row.locator("td").nth(4);
    const text = await why.innerText();
    expect(text).toMatch(/^debounce window \d+ \(3600s\) opened; the run starts at /);
    expect(text).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    // The same `timestamp()` text as every other time on the page, with the exact instant on hover.
    const time = why.locator("time");
    const iso = (await time.getAttribute("datetime"))!;
    expect(Math.abs(new Date(iso).getTime() - Date.now() - 3_600_000)).toBeLessThan(60_000);
    expect(await time.innerText()).toMatch(/^\w{3} \d+, \d\d:\d\d:\d\d$/);
    expect(await time.getAttribute("title")).toBe(iso);
    await browser.shot("pipeline-decision-times");
    expect(browser.errors).toEqual([]);
  });

  it("lists the pipelines' schedule and webhook rows on the Triggers page, linked to their pipeline", async () => {
    const { page } = browser;
    await page.goto(`${http.url}/triggers`);
    await page.getByText("No native triggers").waitFor();
    const section = page.getByRole("region", { name: "Pipeline schedules and webhooks" });
    const nightly = section.locator('tr[data-step-trigger="schedule:f/hooks/nightly"]');
    await nightly.waitFor();
    // The next run on the schedule's clock, its zone named.
    await nightly.locator("td").nth(2).getByText(/UTC$/).waitFor();
    const cells = await nightly.locator("td").allInnerTexts();
    expect(cells[0]).toBe("f/hooks/nightly schedule");
    expect(cells[1]).toBe("0 3 * * * UTC");
    expect(cells[2]).toMatch(/^in \d+ \w+ · \w{3} \d+, 03:00:00 UTC$/);
    expect(cells.slice(3)).toEqual(["f/hooks/pipeline.json", "f/hooks"]);
    const receive = section.locator('tr[data-step-trigger="webhook:f/hooks/receive"]');
    expect(await receive.locator("td").nth(1).innerText()).toBe("POST /api/pipelines/webhook/f/hooks/receive");
    expect(await receive.locator("td").nth(2).innerText()).toBe("—");
    await receive.getByRole("link", { name: "f/hooks" }).click();
    await page.waitForURL(/\/pipelines\/f\/hooks$/);
    expect(browser.errors).toEqual([]);
  });

  it("opens a wide graph on a laptop screen at a readable zoom, from its first script", async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 1366, height: 768 });
    try {
      await page.goto(`${http.url}/pipelines/f/wide`);
      const graph = page.getByRole("region", { name: "Pipeline graph" });
      const first = graph.locator('[data-node="script:f/wide/step1.ts"]');
      await first.waitFor();
      await page.waitForTimeout(300);
      const style = (await graph.locator(".react-flow__viewport").getAttribute("style")) ?? "";
      const zoom = Number(/scale\(([\d.]+)\)/.exec(style)?.[1]);
      // Fitted whole, the 12-node chain would be drawn at about a third of its size: 4 px labels.
      expect(zoom).toBeGreaterThanOrEqual(0.7);
      const box = (await graph.locator(".diagram").boundingBox())!;
      const node = (await first.boundingBox())!;
      expect(node.x).toBeGreaterThanOrEqual(box.x);
      expect(node.x + node.width).toBeLessThanOrEqual(box.x + box.width);
      expect(node.y).toBeGreaterThanOrEqual(box.y);
      expect(node.y + node.height).toBeLessThanOrEqual(box.y + box.height);
      // The graph has the page's width (the main column beside the 216 px menu); the panel goes under it.
      const main = (await page.locator(".page").boundingBox())!;
      expect(box.width).toBeGreaterThan(main.width - 120);
      const side = page.getByRole("region", { name: "Selection" });
      expect((await side.boundingBox())!.y).toBeGreaterThan(box.y + box.height);
      await browser.shot("pipeline-page-wide", { fullPage: false });
      // A click brings the panel under the graph into view (on a 768 px screen the browser's own bars
      // leave about 650 px of page).
      await page.setViewportSize({ width: 1366, height: 650 });
      await first.click();
      await side.getByRole("heading", { name: "step1.ts" }).waitFor();
      await page.waitForFunction(
        () => {
          // (The test files compile without the DOM types: the page's globals are reached through `any`.)
          const w = globalThis as any;
          const r = w.document.querySelector('[aria-label="Selection"]').getBoundingClientRect();
          return r.top >= 0 && r.bottom <= w.innerHeight + 1;
        },
        undefined,
        { timeout: 5_000 },
      );
      expect(browser.errors).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1440, height: 1000 });
    }
  });

  it("shows a backfill's per-partition progress grid", async () => {
    const payload: BackfillPayload = { folder: "f/demo", steps: ["f/demo/ingest.ts"], partitions: ["p1", "p2", "p3"] };
    const h = await p.engine.enqueueRun(BACKFILL_WORKFLOW, payload);
    await h.result({ timeoutMs: 15_000 });
    const { page } = browser;
    await page.goto(`${http.url}/pipelines/f/demo`);
    const grid = page.getByRole("region", { name: "Backfills" }).locator(`[data-backfill="${h.id}"]`);
    await grid.locator('[data-state="succeeded"]').nth(2).waitFor({ timeout: 10_000 });
    expect(await grid.locator("[data-state]").count()).toBe(3);
    expect(await grid.innerText()).toContain("3/3 finished · 3 succeeded");
    expect(await grid.locator('[data-state="succeeded"]').first().getAttribute("title")).toBe("p1: succeeded");
    // The backfill's steps ran with the cascade off: no skip rows; the filter narrows by kind.
    const decisions = page.getByRole("region", { name: "Dispatch decisions" });
    await decisions.locator('tr[data-outcome="dispatched"]').first().waitFor();
    await page.getByLabel("Decision kind").selectOption("skipped");
    await decisions.getByText("No decisions match the filter.").waitFor();
    await page.getByLabel("Decision kind").selectOption("dispatched");
    await decisions.locator('tr[data-outcome="dispatched"]').first().waitFor();
    expect(browser.errors).toEqual([]);
  });

  it("cancels a running backfill and resumes it from the grid's buttons", async () => {
    const partitions = ["d1", "d2", "d3", "d4", "d5", "d6"];
    const payload: BackfillPayload = { folder: "f/slow", steps: ["f/slow/nap.ts"], partitions, concurrency: 1 };
    const h = await p.engine.enqueueRun(BACKFILL_WORKFLOW, payload);
    const { page } = browser;
    await page.goto(`${http.url}/pipelines/f/slow`);
    const region = page.getByRole("region", { name: "Backfills" });
    const first = region.locator(`[data-backfill="${h.id}"]`);
    await first.locator('[data-state="succeeded"]').first().waitFor({ timeout: 15_000 });
    await first.getByRole("button", { name: "Cancel backfill" }).click();
    await first.getByRole("status").getByText("Cancelling").waitFor();
    await eventually(async () => (await p.store.getRun(h.id))?.status === "cancelled", 15_000);
    await first.getByRole("button", { name: "Resume backfill" }).click({ timeout: 15_000 });
    await first.getByRole("status").getByText("Resumed as a new backfill").waitFor();
    const resumed = (await first.getByRole("status").locator("a").innerText()).trim();
    expect(resumed).not.toBe(h.id);
    await p.engine.handle(resumed).result({ timeoutMs: 15_000 });
    const second = region.locator(`[data-backfill="${resumed}"]`);
    await eventually(
      async () =>
        (await second.locator('[data-state="succeeded"], [data-state="skipped"]').count()) === partitions.length,
      15_000,
    );
    // Each partition ran once over both backfills: the resume skipped what had succeeded.
    const runs = (await p.runsOf("f/slow/nap")).filter((r) => r.status === "succeeded");
    expect(runs).toHaveLength(partitions.length);
    expect(await second.locator('[data-state="skipped"]').count()).toBeGreaterThan(0);
    expect(browser.errors).toEqual([]);
  });
});
