/**
 * A materialized lake table on the pipeline page in headless Chromium: the "columns ×N" badge
 * on the write edge into it (its mappings on hover), the partition grid
 * (snapshot, rows, tests), a preview of one partition and of the whole table at an older
 * snapshot (time travel), the snapshots, the schema versions and the column lineage.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { startHttpServer, type HttpServer } from "../../src/http/server.js";
import { startPipelines, type PipelineProject } from "../pipeline/harness.js";
import { type Browser, launch, skipReason } from "./browser.js";

const skip = skipReason();

const FILES = {
  "f/lake/orders.sql": `-- pipeline
-- materialize ducklake://main/orders
SELECT * FROM (VALUES
  (1, 10.50::DECIMAL(10,2), DATE '2026-05-16'),
  (2, 20.00, DATE '2026-05-16'),
  (3, 5.25, DATE '2026-05-17')
) t(id, amount, day)
`,
  "f/lake/daily.sql": `-- pipeline
-- on ducklake://main/orders
-- materialize ducklake://main/daily
-- partitioned daily
-- data_test not_null id
ATTACH 'ducklake://main' AS dl;
SELECT id, amount * 2 AS doubled FROM dl.orders WHERE day = '{partition}'
`,
  "f/lake/checked.sql": `-- pipeline
-- materialize ducklake://main/checked
-- data_test unique id
-- data_test accepted_values id = 1,2
ATTACH 'ducklake://main' AS dl;
SELECT id FROM dl.orders
`,
};

describe.skipIf(skip !== null)(
  `lake table on the pipeline page in headless Chromium${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
    let p: PipelineProject;
    let http: HttpServer;
    let browser: Browser;
    const snapshots: number[] = [];

    beforeAll(async () => {
      p = await startPipelines(FILES);
      const run = async (script: string, partition?: string) => {
        const h = await p.pipelines.runScript(script, {}, { cascade: false, ...(partition && { partition }) });
        snapshots.push(((await h.result({ timeoutMs: 20_000 })) as { snapshot_id: number }).snapshot_id);
      };
      await run("f/lake/orders");
      await run("f/lake/daily", "2026-05-16");
      await run("f/lake/daily", "2026-05-17");
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

    it("shows partitions, a partition preview, time travel, snapshots, schema versions and lineage", async () => {
      const [, first, second] = snapshots as [number, number, number];
      const { page } = browser;
      await page.goto(`${http.url}/pipelines/f/lake`);
      const graph = page.getByRole("region", { name: "Pipeline graph" });
      // the write edge into the materialized table carries its column lineage, listed on hover
      const badge = graph.locator('[data-columns="2"]');
      expect(await graph.locator('[data-columns="3"] title').textContent()).toContain("id ← (no source column)");
      await badge.waitFor();
      const box = await badge.boundingBox();
      expect(box !== null && box.width > 10 && box.height > 3, JSON.stringify(box)).toBe(true);
      expect(await badge.evaluate((el) => el.lastChild?.textContent)).toBe("columns ×2");
      expect(await badge.locator("title").textContent()).toBe(
        "id ← ducklake://main/orders.id\ndoubled ← ducklake://main/orders.amount",
      );
      await graph.locator('[data-node="asset:ducklake://main/daily"]').click();
      const lake = page.getByRole("region", { name: "Lake table" });

      const grid = lake.getByRole("table", { name: "Lake partitions" });
      const row16 = grid.locator('tr[data-partition="2026-05-16"]');
      await row16.waitFor();
      expect((await row16.locator("td").allInnerTexts()).slice(1, 3)).toEqual([String(first), "2"]);
      expect(await row16.innerText()).toContain("1/1 passed");
      expect((await grid.locator('tr[data-partition="2026-05-17"] td').allInnerTexts()).slice(1, 3)).toEqual([
        String(second),
        "1",
      ]);
      await browser.shot("lake-partitions");

      await row16.getByRole("button", { name: "2026-05-16" }).click();
      await lake.getByLabel("Preview summary").getByText(`2 of 2 row(s) at snapshot ${second}`).waitFor();
      const preview = lake.getByRole("table", { name: "Preview" });
      expect(await preview.locator("thead th").allInnerTexts()).toEqual(["id", "doubled", "_partition"]);
      expect((await preview.locator("tbody tr").allInnerTexts()).map((t) => t.split("\t"))).toEqual([
        ["1", "21.00", "2026-05-16"],
        ["2", "40.00", "2026-05-16"],
      ]);

      await lake.getByRole("tab", { name: "Snapshots" }).click();
      const snaps = lake.getByRole("table", { name: "Snapshots" });
      expect(
        await snaps.locator("tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-snapshot"))),
      ).toEqual([String(second), String(first)]);
      await snaps.locator(`tr[data-snapshot="${first}"]`).getByRole("button", { name: "Preview as of" }).click();
      await lake.getByLabel("Preview partition").selectOption("");
      await lake.getByLabel("Preview summary").getByText(`2 of 2 row(s) at snapshot ${first}`).waitFor();
      await lake.getByLabel("Preview snapshot").selectOption("");
      await lake.getByLabel("Preview summary").getByText(`3 of 3 row(s) at snapshot ${second}`).waitFor();
      await browser.shot("lake-preview");

      await lake.getByRole("tab", { name: "Schema" }).click();
      const versions = lake.getByRole("list", { name: "Schema versions" });
      expect(await versions.locator("li").count()).toBe(1);
      expect(await versions.locator('li[data-version="1"]').innerText()).toMatch(
        /Version 1[\s\S]*id\s*INTEGER[\s\S]*doubled\s*DECIMAL\(\d+,2\)[\s\S]*_partition\s*VARCHAR/,
      );

      await lake.getByRole("tab", { name: /Lineage/ }).click();
      const lineage = lake.getByRole("table", { name: "Column lineage" });
      expect(await lineage.locator('tr[data-column="doubled"]').innerText()).toMatch(
        /ducklake:\/\/main\/orders\.amount\s+derived/,
      );
      expect(await lineage.locator('tr[data-column="id"]').innerText()).toMatch(
        /ducklake:\/\/main\/orders\.id\s+passthrough/,
      );
      // as of a snapshot: both daily writes computed the same lineage, so one version, from the first
      await lake.getByLabel("Lineage snapshot").selectOption(String(second));
      await lake
        .getByLabel("Lineage version")
        .getByText(`version 1 of 1, computed at snapshot ${first} by f/lake/daily.sql`)
        .waitFor();
      await lake.getByLabel("Lineage snapshot").selectOption(String(first));
      await lake
        .getByLabel("Lineage version")
        .getByText(`version 1 of 1, computed at snapshot ${first} by f/lake/daily.sql`)
        .waitFor();
      expect(await lineage.locator("tbody tr").count()).toBe(2);
      await browser.shot("lake-lineage");
      expect(browser.errors).toEqual([]);
    }, 60_000);

    it("lists a run's data tests on its page: each outcome, offending rows and examples", async () => {
      const h = await p.pipelines.runScript("f/lake/checked", {}, { cascade: false });
      await expect(h.result({ timeoutMs: 20_000 })).rejects.toThrow("1 of 2 data test(s) failed");
      const { page } = browser;
      await page.goto(`${http.url}/runs/${h.id}`);
      const tests = page.getByRole("region", { name: "Data tests" });
      await tests.locator("tbody tr").nth(1).waitFor();
      expect(await tests.locator(".card-head").innerText()).toContain("1 of 2 failed: the slice was not published");
      expect((await tests.locator("tbody tr").allInnerTexts()).map((t) => t.split("\t"))).toEqual([
        ["unique id", "pass", "0", "—"],
        ["accepted_values id = 1,2", "fail", "1", "3"],
      ]);
      await browser.shot("run-data-tests");
      expect(browser.errors).toEqual([]);
    }, 60_000);

    it("at 1366x768 the partition box beside the lake table shows its whole placeholder", async () => {
      const { page } = browser;
      await page.setViewportSize({ width: 1366, height: 768 });
      try {
        await page.goto(`${http.url}/pipelines/f/lake`);
        await page
          .getByRole("region", { name: "Pipeline graph" })
          .locator('[data-node="asset:ducklake://main/daily"]')
          .click();
        const input = page.getByRole("textbox", { name: "Partition" });
        await input.waitFor();
        // The placeholder's width in the input's own font, against the room inside the input.
        // (The test files compile without the DOM types: the page's globals are reached through `any`.)
        const { text, room, needed } = await input.evaluate((el: any) => {
          const w = globalThis as any;
          const style = w.getComputedStyle(el);
          const ctx = w.document.createElement("canvas").getContext("2d");
          ctx.font = style.font;
          const pad = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
          return {
            text: el.placeholder as string,
            room: (el.clientWidth as number) - pad,
            needed: ctx.measureText(el.placeholder).width as number,
          };
        });
        expect(text).toBe("resolved automatically");
        expect(room, `${room}px of room for ${needed}px of placeholder`).toBeGreaterThanOrEqual(needed);
        await browser.shot("lake-partition-box-1366", { fullPage: false });
        expect(browser.errors).toEqual([]);
      } finally {
        await page.setViewportSize({ width: 1440, height: 1000 });
      }
    }, 60_000);
  },
);
