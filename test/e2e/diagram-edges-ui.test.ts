/**
 * Workflow diagrams in headless Chromium: an if/else diagram's edges go around the boxes
 * they do not connect (seed 000's approval example: the branch's true edge used to cut
 * straight down through the deploy task). Real engine, project loader and HTTP server.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { startHttpServer, type HttpServer } from "../../src/http/server.js";
import { createEngine, type Engine } from "../../src/index.js";
import { Project } from "../../src/loader/project.js";
import { makeProject, REPO } from "../helpers/project.js";
import { type Browser, launch, skipReason } from "./browser.js";

const skip = skipReason();
const example = (name: string) => readFileSync(join(REPO, "examples", "f", "wac", name), "utf8");

const FILES = {
  "f/wac/approval.ts": example("approval.ts"),
  "f/wac/error_handling.ts": example("error_handling.ts"),
  "f/wac/deployment_gate.ts": example("deployment_gate.ts"),
};

/** Node boxes an edge's drawn path passes through, other than its own ends (page coordinates of the flow). */
async function crossings(browser: Browser): Promise<string[]> {
  return browser.page.evaluate(() => {
    const doc = (globalThis as any).document;
    const boxes = [...doc.querySelectorAll(".react-flow__node:not(.react-flow__node-backdrop)")].map((n: any) => ({
      id: n.getAttribute("data-id") as string,
      r: n.getBoundingClientRect(),
    }));
    const out: string[] = [];
    for (const edge of doc.querySelectorAll(".react-flow__edge")) {
      // React Flow names an edge's ends in its aria-label: "Edge from <source> to <target>".
      const [, from, to] = /^Edge from (.+) to (.+)$/.exec(edge.getAttribute("aria-label") ?? "") ?? [];
      const path = edge.querySelector("path.react-flow__edge-path");
      const matrix = path.getScreenCTM();
      const length = path.getTotalLength();
      for (const b of boxes) {
        if (b.id === from || b.id === to) continue;
        for (let at = 0; at <= length; at += 2) {
          const p = path.getPointAtLength(at).matrixTransform(matrix);
          // 1 px inside the box: touching its border is not crossing it.
          if (p.x > b.r.left + 1 && p.x < b.r.right - 1 && p.y > b.r.top + 1 && p.y < b.r.bottom - 1) {
            out.push(`${from} → ${to} crosses ${b.id}`);
            break;
          }
        }
      }
    }
    return out;
  });
}

describe.skipIf(skip !== null)(`diagram edges in headless Chromium${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let engine: Engine;
  let http: HttpServer;
  let browser: Browser;
  let url: string;

  beforeAll(async () => {
    const root = makeProject(FILES, "sluice-e2e-diagram-");
    let app: ReturnType<typeof createApp> | null = null;
    http = await startHttpServer((req, env) => app!.fetch(req, env), { port: 0 });
    url = http.url;
    engine = createEngine({
      database: join(root, ".sluice", "sluice.db"),
      baseUrl: url,
      worker: false,
      scheduler: false,
    });
    await engine.start();
    const report = await new Project(root, engine).loadAll();
    if (report.errors.length) throw new Error(report.errors.map((e) => e.error.message).join("\n"));
    app = createApp({ engine, auth: { mode: "off", user: "erin" }, projectRoot: root });
    browser = await launch();
    await browser.page.setViewportSize({ width: 1366, height: 768 });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await http?.close();
    await engine?.stop({ drainMs: 100 });
  });

  for (const name of ["f/wac/approval", "f/wac/error_handling", "f/wac/deployment_gate"]) {
    it(`${name}: no edge is drawn through a box it does not connect`, async () => {
      const { page } = browser;
      await page.goto(`${url}/workflows/${encodeURIComponent(name)}`);
      await page.locator('.diagram[data-ready="true"]').waitFor({ timeout: 15_000 });
      // A straight vertical edge has no width, so "attached", not "visible".
      await page.locator(".react-flow__edge path.react-flow__edge-path").first().waitFor({ state: "attached" });
      await page.waitForTimeout(300);
      const edges = await page.locator(".react-flow__edge").count();
      expect(edges).toBeGreaterThan(3);
      await page.getByRole("region", { name: "Diagram card" }).screenshot({
        path: join(REPO, "test-artifacts", "e2e", `diagram-edges-${name.split("/").pop()}.png`),
      });
      expect(await crossings(browser)).toEqual([]);
      expect(browser.errors).toEqual([]);
    });
  }
});
