/**
 * A lake table no write has reached yet, on the pipeline page in headless Chromium: its
 * Lineage tab shows what the pipeline graph shows on the write edge into it, the column lineage
 * inferred from the loaded script's SQL without running it (`source: "static"`), a column that
 * either of two tables of unknown schema may hold marked unknown.
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
SELECT * FROM (VALUES (1, 10.50::DECIMAL(10,2))) t(id, amount)
`,
  "f/lake/enriched.sql": `-- pipeline
-- on ducklake://main/orders
-- materialize ducklake://main/enriched
ATTACH 'ducklake://main' AS dl;
SELECT o.id, o.amount * 2 AS doubled, note FROM dl.orders o, read_csv('a.csv') a, read_csv('b.csv') b
`,
};

describe.skipIf(skip !== null)(
  `a lake table's lineage before its first write in headless Chromium${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
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

    it("shows the static lineage of a table not written yet, as the graph's write edge does", async () => {
      const { page } = browser;
      await page.goto(`${http.url}/pipelines/f/lake`);
      const graph = page.getByRole("region", { name: "Pipeline graph" });
      await graph.locator('[data-node="asset:ducklake://main/enriched"]').click();
      const lake = page.getByRole("region", { name: "Lake table" });
      await lake.getByRole("tab", { name: /Lineage/ }).click();
      await lake
        .getByLabel("Lineage version")
        .getByText("not written yet: inferred from the SQL of f/lake/enriched.sql without running it (static)")
        .waitFor();
      const lineage = lake.getByRole("table", { name: "Column lineage" });
      expect(await lineage.locator('tr[data-column="id"]').innerText()).toMatch(
        /ducklake:\/\/main\/orders\.id\s+passthrough/,
      );
      expect(await lineage.locator('tr[data-column="doubled"]').innerText()).toMatch(
        /ducklake:\/\/main\/orders\.amount\s+derived/,
      );
      // dl.orders has known columns (its loaded writer's: id, amount); either CSV may hold note
      // sources and how: unknown, not "derived"
      expect(await lineage.locator('tr[data-column="note"]').innerText()).toMatch(/unknown\s+unknown/);
      expect(await lineage.locator("tbody tr").count()).toBe(3);
      // the API says the same: nothing recorded, the static inference in its place
      const detail = (await (
        await fetch(`${http.url}/api/lake/table?uri=${encodeURIComponent("ducklake://main/enriched")}`)
      ).json()) as { lineage: unknown; static_lineage: { source: string; script: string } };
      expect(detail.lineage).toBeNull();
      expect(detail.static_lineage).toMatchObject({ source: "static", script: "f/lake/enriched.sql" });
      await browser.shot("lake-static-lineage");
      expect(browser.errors).toEqual([]);
    }, 60_000);
  },
);
