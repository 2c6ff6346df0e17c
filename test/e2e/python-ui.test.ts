/**
 * A Python workflow in the web UI, in a real browser against a real engine and python3: the
 * diagram of seed 000's complete Python example (built from the Python source), coloured by a
 * run's live status, and the run approved through the run page's form.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { startHttpServer, type HttpServer } from "../../src/http/server.js";
import { createEngine, type Engine } from "../../src/index.js";
import { Project } from "../../src/loader/project.js";
import { isTerminal } from "../../src/store/types.js";
import { makeProject, REPO } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";
import { type Browser, launch, skipReason } from "./browser.js";

const skip = skipReason();
const FILES = {
  "f/py/complete.py": readFileSync(join(REPO, "test", "fixtures", "python-wac", "f", "py", "complete.py"), "utf8"),
};

describe.skipIf(skip !== null)(
  `Python workflow in the web UI (headless Chromium)${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
    let engine: Engine;
    let project: Project;
    let http: HttpServer;
    let data: Server;
    let dataUrl: string;
    let browser: Browser;
    let url: string;

    beforeAll(async () => {
      const root = makeProject(FILES, "sluice-e2e-py-");
      data = createServer((req, res) => {
        const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page"));
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify([{ page, item: 1 }]));
      });
      await new Promise<void>((r) => data.listen(0, "127.0.0.1", r));
      dataUrl = `http://127.0.0.1:${(data.address() as { port: number }).port}/items`;
      // The seed's Python imports httpx (PyPI, unreachable here): the tests' stand-in over urllib.
      process.env.PYTHONPATH = join(REPO, "test", "fixtures", "python-shims");
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
      project = new Project(root, engine);
      const report = await project.loadAll();
      if (report.errors.length) throw new Error(report.errors.map((e) => e.error.message).join("\n"));
      app = createApp({ engine, auth: { mode: "off", user: "erin" }, projectRoot: root });
      browser = await launch();
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await http?.close();
      await engine?.stop({ drainMs: 1000 });
      project?.python.close();
      await new Promise<void>((r) => (data ? data.close(() => r()) : r()));
    });

    it("shows the diagram from the Python source, coloured by a run, and approves it from the run page", async () => {
      const { page } = browser;
      await page.goto(`${url}/workflows/${encodeURIComponent("f/py/complete")}`);
      await page.locator('.diagram[data-ready="true"]').waitFor({ timeout: 20_000 });
      const ids = await page.locator("[data-node]").evaluateAll((els) => els.map((e) => e.getAttribute("data-node")));
      for (const node of [
        "start",
        "step:run_id",
        "step:started_at",
        "task:fetch_page",
        "task:process_chunk",
        "approval:waitForApproval",
        "task:save_results",
        "sleep:sleep",
        "end",
      ])
        expect(ids, node).toContain(node);
      expect(await page.locator(".dg-group").count()).toBe(2);
      await browser.shot("workflow-page-python-complete");

      const res = await fetch(`${url}/api/runs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ workflow: "f/py/complete", payload: { base_url: dataUrl, page_count: 3 } }),
      });
      const id = ((await res.json()) as { run: { id: string } }).run.id;
      await eventually(async () => (await engine.store.getRun(id))!.status === "waiting", 20_000);
      await page.goto(`${url}/runs/${encodeURIComponent(id)}`);
      await page.locator('.diagram[data-ready="true"]').waitFor({ timeout: 20_000 });
      await page.bringToFront();
      await page.locator('[data-node="task:fetch_page"][data-status="succeeded"]').waitFor({ state: "attached" });
      await page
        .locator('[data-node="approval:waitForApproval"][data-status="waiting"]')
        .waitFor({ state: "attached" });
      // textContent, not innerText: React Flow keeps a node it re-renders hidden until it is
      // measured, and innerText leaves hidden text out (CI once read '' there).
      const reps = page.locator('[data-node="task:fetch_page"] .dg-rep');
      await eventually(async () => (await reps.textContent()) === "×3", 10_000);
      expect(await reps.textContent()).toBe("×3");
      await browser.shot("run-page-python-waiting");
      await page.getByRole("region", { name: "Approval" }).getByRole("button", { name: "Approve" }).click();
      await eventually(async () => isTerminal((await engine.store.getRun(id))!.status), 20_000);
      const run = (await engine.store.getRun(id))!;
      expect(run.status).toBe("succeeded");
      expect(JSON.parse(run.result!)).toMatchObject({ saved: 3, approved_by: "erin" });
      await page.locator('[data-node="end"].st-succeeded').waitFor({ state: "attached", timeout: 15_000 });
      expect(browser.errors).toEqual([]);
    });
  },
  120_000,
);
