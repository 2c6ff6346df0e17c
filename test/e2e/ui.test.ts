/**
 * The web UI in a real browser against a real engine (SQLite file, embedded worker) and
 * the real HTTP server: the runs page updating live, a run's timeline, approving a
 * waiting run through its form, and the diagram of seed 000's complete example.
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
const example = (name: string) => readFileSync(join(REPO, "examples", "f", "wac", name), "utf8");

const FILES = {
  "f/wac/complete.ts": example("complete.ts"),
  "f/wac/approval_schema.ts": example("approval_schema.ts"),
  "workflows/boom.ts": `import { defineWorkflow } from "tako.sh";
export default defineWorkflow("boom", { retries: 0, handler: async () => { throw new Error("kaput"); } });`,
  "workflows/slow.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("slow", {
  handler: async (p: { ms?: number }, ctx) => {
    await ctx.run("prepare", () => { console.log("preparing"); return 1; });
    await ctx.sleep("pause", p.ms ?? 1500);
    return ctx.run("finish", () => { console.log("finishing"); return { ok: true }; });
  },
});`,
  "workflows/order-approval.ts": readFileSync(join(REPO, "examples", "workflows", "order-approval.ts"), "utf8"),
};

describe.skipIf(skip !== null)(
  `web UI in headless Chromium${skip ? ` (skipped: ${skip})` : ""}`,
  () => {
    let engine: Engine;
    let http: HttpServer;
    let data: Server;
    let dataUrl: string;
    let browser: Browser;
    let url: string;

    const api = async (path: string, body?: unknown) => {
      const res = await fetch(
        url + path,
        body === undefined
          ? {}
          : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
      );
      return (await res.json()) as any;
    };
    const enqueue = async (workflow: string, payload: unknown) =>
      (await api("/api/runs", { workflow, payload })).run.id as string;
    const untilStatus = (id: string, ok: (s: string) => boolean) =>
      eventually(async () => ok((await engine.store.getRun(id))!.status), 20_000);

    beforeAll(async () => {
      const root = makeProject(FILES, "sluice-e2e-");
      data = createServer((req, res) => {
        const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page"));
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify([
            { page, item: 1 },
            { page, item: 2 },
          ]),
        );
      });
      await new Promise<void>((r) => data.listen(0, "127.0.0.1", r));
      dataUrl = `http://127.0.0.1:${(data.address() as { port: number }).port}/items`;
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
      app = createApp({ engine, auth: { mode: "off", user: "erin" }, projectRoot: root });
      browser = await launch();
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await http?.close();
      await engine?.stop({ drainMs: 1000 });
      await new Promise<void>((r) => (data ? data.close(() => r()) : r()));
    });

    it("runs page: a new run appears and finishes live, without a reload", async () => {
      const { page } = browser;
      await page.goto(`${url}/runs`);
      await page.getByRole("heading", { name: "Runs" }).waitFor();
      const id = await enqueue("slow", { ms: 1500 });
      const row = page.locator(`tr[data-run="${id}"]`);
      await row.waitFor({ timeout: 10_000 });
      expect(["pending", "running"]).toContain(await row.getAttribute("data-status"));
      await browser.shot("runs-page-running");
      await page.locator(`tr[data-run="${id}"][data-status="succeeded"]`).waitFor({ timeout: 15_000 });
      await browser.shot("runs-page-finished");
      // Filters: Failed shows nothing of this run, Succeeded shows it.
      await page.locator('[data-filter="failed"]').click();
      await page.waitForURL(/status=failed/);
      await expect(page.locator(`tr[data-run="${id}"]`).count()).resolves.toBe(0);
      await page.locator('[data-filter="succeeded"]').click();
      await page.locator(`tr[data-run="${id}"]`).waitFor();
      expect(browser.errors).toEqual([]);
    });

    it("runs page: Tako's status name ?status=dead selects the Failed filter, which shows the alias", async () => {
      const { page } = browser;
      const dead = await enqueue("boom", {});
      const alive = await enqueue("slow", { ms: 50 });
      await untilStatus(dead, (s) => s === "failed");
      await untilStatus(alive, (s) => s === "succeeded");
      await page.goto(`${url}/runs?status=dead`);
      await page.locator(`tr[data-run="${dead}"]`).waitFor({ timeout: 10_000 });
      expect(await page.locator(`tr[data-run="${alive}"]`).count()).toBe(0);
      const failed = page.locator('[data-filter="failed"]');
      expect(await failed.getAttribute("aria-pressed")).toBe("true");
      expect(await page.locator('[data-filter="all"]').getAttribute("aria-pressed")).toBe("false");
      expect(await failed.locator('[data-alias="dead"]').innerText()).toBe("dead");
      expect(await failed.getAttribute("title")).toMatch(/Tako calls this status dead/);
      expect(await page.locator("[data-alias]").count()).toBe(1);
      expect(await page.locator(`tr[data-run="${dead}"]`).getAttribute("data-status")).toBe("failed");
      expect(browser.errors).toEqual([]);
    });

    it("run page: the timeline shows each step with its duration, and a row's logs", async () => {
      const { page } = browser;
      const id = await enqueue("slow", { ms: 800 });
      await untilStatus(id, (s) => s === "succeeded");
      await page.goto(`${url}/runs`);
      await page.locator(`tr[data-run="${id}"] a.run-link`).click();
      await page.waitForURL(new RegExp(`/runs/${id}$`));
      await page.locator('[data-row="step:finish"]').waitFor();
      const rows = await page.locator(".tl-row").evaluateAll((els) => els.map((e) => e.getAttribute("data-row")));
      expect(rows).toEqual([`run:${id}`, "step:prepare", "step:pause", "step:finish"]);
      expect(await page.locator('[data-row="step:pause"]').getAttribute("data-status")).toBe("succeeded");
      const pause = await page.locator('[data-row="step:pause"] .tl-dur').innerText();
      expect(pause).toMatch(/^(8\d\d ms|\d\.\d s)$/);
      await page.locator(".log", { hasText: "finishing" }).waitFor();
      await page.locator('[data-row="step:prepare"]').click();
      await page.locator(".logs", { hasText: "preparing" }).waitFor();
      expect(await page.locator(".logs").innerText()).not.toContain("finishing");
      await page.getByRole("region", { name: "Result" }).getByText('"ok": true').waitFor();
      await browser.shot("run-page-timeline");
      expect(browser.errors).toEqual([]);
    });

    // The card said "Cancelled: cancelled: superseded by v2" (the stored message after the error's name).
    it("run page: a cancelled run's card says its reason once", async () => {
      const { page } = browser;
      const id = await enqueue("slow", { ms: 60_000 });
      await untilStatus(id, (s) => s === "waiting");
      expect(await api(`/api/runs/${id}/cancel`, { reason: "superseded by v2" })).toMatchObject({
        status: "cancelled",
      });
      // Without a reason the API gives its own ("cancelled by <who>"): that, once.
      const unexplained = await enqueue("slow", { ms: 60_000 });
      await untilStatus(unexplained, (s) => s === "waiting");
      await api(`/api/runs/${unexplained}/cancel`, {});
      await page.goto(`${url}/runs/${id}`);
      const card = page.getByRole("region", { name: "Cancelled" });
      await card.getByText("superseded by v2").waitFor();
      expect(await card.locator(".error-message").innerText()).toBe("Cancelled: superseded by v2");
      await page.goto(`${url}/runs/${unexplained}`);
      await card.getByText("cancelled by erin").waitFor();
      expect(await card.locator(".error-message").innerText()).toBe("Cancelled: cancelled by erin");
      await browser.shot("run-page-cancelled");
      expect(browser.errors).toEqual([]);
    });

    it("run page: a wait on a computed event name (a template literal) shows as waiting in the diagram", async () => {
      const { page } = browser;
      await page.bringToFront();
      const id = await enqueue("order-approval", { orderId: "ord_7" });
      await untilStatus(id, (s) => s === "waiting");
      await page.goto(`${url}/runs/${id}`);
      await page.locator('.diagram[data-ready="true"]').waitFor({ timeout: 15_000 });
      // The node's key is `approval:order-${payload.orderId}`, the step's `approval:order-ord_7`.
      const wait = page.locator('[data-node="wait:approval:order-${payload.orderId}"]');
      await page
        .locator('[data-node="wait:approval:order-${payload.orderId}"][data-status="waiting"]')
        .waitFor({ state: "attached", timeout: 10_000 });
      expect(await wait.getAttribute("data-status")).toBe("waiting");
      await api("/api/signals", { event: "approval:order-ord_7", payload: { approved: true, by: "ana" } });
      await untilStatus(id, (s) => s === "succeeded");
      await page
        .locator('[data-node="wait:approval:order-${payload.orderId}"][data-status="succeeded"]')
        .waitFor({ state: "attached", timeout: 10_000 });
      await browser.shot("run-page-computed-wait");
      expect(browser.errors).toEqual([]);
    });

    it("run page: a run waiting for an event names it and sends the signal from its form", async () => {
      const { page } = browser;
      await page.bringToFront();
      const id = await enqueue("order-approval", { orderId: "ord_8" });
      await untilStatus(id, (s) => s === "waiting");
      await page.goto(`${url}/runs/${id}`);
      const panel = page.getByRole("region", { name: "Signal" });
      await panel.getByText("approval:order-ord_8", { exact: true }).waitFor();
      expect(await panel.innerText()).toMatch(/times out in 6 d/);
      await panel.getByLabel("Payload (JSON, optional)").fill("{approved: true}");
      await panel.getByRole("button", { name: "Send signal" }).click();
      await panel
        .getByRole("alert")
        .getByText(/The payload is not JSON/)
        .waitFor();
      expect((await engine.store.getRun(id))!.status).toBe("waiting");
      await panel.getByLabel("Payload (JSON, optional)").fill('{"approved": true, "by": "ana"}');
      await panel.getByRole("button", { name: "Send signal" }).click();
      await untilStatus(id, (s) => s === "succeeded");
      expect(JSON.parse((await engine.store.getRun(id))!.result!)).toEqual({ approvedBy: "ana" });
      await page.getByRole("region", { name: "Signal" }).waitFor({ state: "detached", timeout: 10_000 });
      await browser.shot("run-page-signal-sent");
      expect(browser.errors).toEqual([]);
    });

    it("run page on a laptop screen: every fact of a run with child runs fits its column", async () => {
      const { page } = browser;
      await page.bringToFront();
      await page.setViewportSize({ width: 1366, height: 768 });
      try {
        const id = await enqueue("f/wac/complete", { baseUrl: dataUrl, pageCount: 3 });
        await untilStatus(id, (s) => s === "waiting");
        await page.goto(`${url}/runs/${id}`);
        const steps = page.locator(".facts > div").filter({ hasText: "Steps" }).locator("dd");
        await eventually(async () => / · \d/.test(await steps.innerText()), 10_000);
        const clipped = await page
          .locator(".facts dd")
          .evaluateAll((dds) => dds.filter((dd) => dd.scrollWidth > dd.clientWidth).map((dd) => dd.textContent));
        expect(clipped).toEqual([]);
        await api(`/api/runs/${id}/cancel`, {});
      } finally {
        await page.setViewportSize({ width: 1440, height: 1000 });
      }
    });

    it("approves a waiting run through its form (run page), and through the emailed approval page", async () => {
      const { page } = browser;
      const id = await enqueue("f/wac/approval_schema", {});
      await untilStatus(id, (s) => s === "waiting");
      await page.goto(`${url}/runs/${encodeURIComponent(id)}`);
      const panel = page.getByRole("region", { name: "Approval" });
      await panel.waitFor();
      // order: reason, then environment; reason is required
      const labels = await panel.locator(".field label").allInnerTexts();
      expect(labels.map((l) => l.replace("*", "").trim())).toEqual(["reason", "environment"]);
      // reason is required: the browser keeps the form from being sent without it.
      await panel.getByRole("button", { name: "Approve" }).click();
      expect(
        await panel
          .getByLabel("reason")
          .evaluate((el) => (el as unknown as { validity: { valueMissing: boolean } }).validity.valueMissing),
      ).toBe(true);
      expect((await engine.store.getRun(id))!.status).toBe("waiting");
      await panel.getByLabel("reason").fill("Looks good");
      await panel.getByLabel("environment").selectOption({ label: "production" });
      await browser.shot("approval-form");
      await panel.getByRole("button", { name: "Approve" }).click();
      await untilStatus(id, (s) => s === "succeeded");
      await page.locator(".badge[data-status=succeeded]").first().waitFor({ timeout: 10_000 });
      expect(JSON.parse((await engine.store.getRun(id))!.result!)).toEqual({
        value: { reason: "Looks good", environment: "production" },
        approver: "erin",
        approved: true,
      });
      await page.getByRole("region", { name: "Approval history" }).getByText("erin").waitFor();

      // The server-rendered page of a resume link works without JavaScript.
      const second = await enqueue("f/wac/approval_schema", {});
      await untilStatus(second, (s) => s === "waiting");
      const { resumeUrls } = await import("../../src/core/resume-token.js");
      const links = resumeUrls(url, await engine.resumeSecret(), {
        runId: second,
        key: "waitForApproval",
        approver: "dana",
        exp: Date.now() + 3_600_000,
      });
      const noJs = await browser.context.newPage();
      await noJs.route("**/*.js", (r) => r.abort());
      await noJs.goto(links.approvalPage);
      await noJs.getByRole("heading", { name: "Approval requested" }).waitFor();
      await noJs.getByLabel("reason").fill("Ship it");
      await noJs.getByLabel("environment").selectOption({ label: "staging" });
      await noJs.screenshot({ path: join(REPO, "test-artifacts", "e2e", "approval-page.png"), fullPage: true });
      await noJs.getByRole("button", { name: "Approve" }).click();
      await noJs.getByText("Approved: the run resumes.").waitFor();
      await noJs.close();
      await untilStatus(second, (s) => s === "succeeded");
      expect(JSON.parse((await engine.store.getRun(second))!.result!)).toMatchObject({
        approver: "dana",
        approved: true,
        value: { reason: "Ship it", environment: "staging" },
      });
      expect(browser.errors).toEqual([]);
    });

    it("start-run form: prefilled with the workflow's required parameters, and says what it expects", async () => {
      const { page } = browser;
      await page.bringToFront();
      await page.goto(`${url}/workflows/${encodeURIComponent("f/wac/complete")}`);
      const form = page.getByRole("region", { name: "Start a run" });
      expect(JSON.parse(await form.getByLabel("Payload").inputValue())).toEqual({ baseUrl: null, pageCount: null });
      expect(await form.getByTestId("expected-fields").innerText()).toBe(
        "Expected fields: baseUrl (required), pageCount (required).",
      );
      // A defineWorkflow<{ orderId: string }>: the fields its source declares.
      await page.goto(`${url}/workflows/order-approval`);
      await form.getByText("Expected fields: orderId (required).").waitFor();
      expect(JSON.parse(await form.getByLabel("Payload").inputValue())).toEqual({ orderId: null });
      // The handler's parameter type: an optional field only, so {}.
      await page.goto(`${url}/workflows/slow`);
      await form.getByText("Expected fields: ms.").waitFor();
      expect(await form.getByLabel("Payload").inputValue()).toBe("{}");
      // No payload type at all: {} and a note saying Sluice cannot name the fields.
      await page.goto(`${url}/workflows/boom`);
      expect(await form.getByLabel("Payload").inputValue()).toBe("{}");
      expect(await form.getByTestId("expected-fields").innerText()).toMatch(
        /^Sluice cannot name this workflow's payload fields/,
      );
      expect(browser.errors).toEqual([]);
    });

    it("start-run form: a required field left null is refused in the form, naming it, and nothing is enqueued", async () => {
      const { page } = browser;
      await page.bringToFront();
      await page.setViewportSize({ width: 1366, height: 768 });
      try {
        const before = (await engine.store.listRuns({ workflow: "order-approval", limit: 1000 })).length;
        await page.goto(`${url}/workflows/order-approval`);
        const form = page.getByRole("region", { name: "Start a run" });
        await form.getByText("Expected fields: orderId (required).").waitFor();
        await form.getByRole("button", { name: "Start run" }).click();
        const alert = form.getByRole("alert");
        await alert.waitFor();
        expect(await alert.innerText()).toBe(
          'orderId is required: replace its null with a value (e.g. {"orderId": "…"}) before starting the run.',
        );
        await browser.shot("start-run-required-null", { fullPage: false });
        // Missing altogether is refused the same way; a value starts the run.
        await form.getByLabel("Payload").fill("{}");
        await form.getByRole("button", { name: "Start run" }).click();
        await form
          .getByRole("alert")
          .getByText(/^orderId is required/)
          .waitFor();
        expect(page.url()).toMatch(/\/workflows\/order-approval$/);
        expect((await engine.store.listRuns({ workflow: "order-approval", limit: 1000 })).length).toBe(before);
        await form.getByLabel("Payload").fill('{"orderId": "ord_form"}');
        await form.getByRole("button", { name: "Start run" }).click();
        await page.waitForURL(/\/runs\//);
        expect((await engine.store.listRuns({ workflow: "order-approval", limit: 1000 })).length).toBe(before + 1);
        expect(browser.errors).toEqual([]);
      } finally {
        await page.setViewportSize({ width: 1440, height: 1000 });
      }
    });

    it("a failed run that waited in the queue: header and timeline give one duration (running time)", async () => {
      const { page } = browser;
      await page.bringToFront();
      // Queued for about 2 s before its only attempt (runAt), then fails at once.
      const runAt = new Date(Date.now() + 2000).toISOString();
      const id = (await api("/api/runs", { workflow: "boom", payload: {}, runAt })).run.id as string;
      await untilStatus(id, (s) => s === "failed");
      const run = (await engine.store.getRun(id))!;
      expect(run.startedAt! - run.createdAt).toBeGreaterThan(1500);
      await page.goto(`${url}/runs/${encodeURIComponent(id)}`);
      const header = await page.getByTestId("run-duration").innerText();
      const timeline = await page.locator(`[data-row="run:${id}"] .tl-dur`).innerText();
      await browser.shot("failed-run-durations", { fullPage: false });
      expect(timeline).toBe(header);
      // Both are the running time, as the Runs table and the workflow's p50 count it.
      expect(header).toMatch(/^\d+ ms$/);
      expect(browser.errors).toEqual([]);
    });

    it("workflow page: 'Active now' counts running and waiting runs, not one scheduled an hour ahead", async () => {
      const { page } = browser;
      await page.bringToFront();
      const runAt = new Date(Date.now() + 3_600_000).toISOString();
      const later = (await api("/api/runs", { workflow: "order-approval", payload: { orderId: "later" }, runAt })).run
        .id as string;
      const waiting = await enqueue("order-approval", { orderId: "now" });
      await untilStatus(waiting, (s) => s === "waiting");
      const active = (await engine.store.listRuns({ workflow: "order-approval", status: ["running", "waiting"] }))
        .length;
      await page.goto(`${url}/workflows/order-approval`);
      const stat = page.locator('[aria-label="Statistics"] .stat', { hasText: "Active now" });
      await stat.waitFor();
      expect(await stat.locator(".stat-value").innerText()).toBe(String(active));
      expect(await stat.locator(".stat-hint").innerText()).toMatch(/\b1 scheduled\b/);
      // The Runs page's Running and Waiting filters list the same runs; the scheduled one is Queued.
      await page.goto(`${url}/runs?status=waiting&workflow=order-approval`);
      await page.locator(`tr[data-run="${waiting}"]`).waitFor();
      expect(await page.locator(`tr[data-run="${later}"]`).count()).toBe(0);
      await browser.shot("workflow-active-now", { fullPage: false });
      await api(`/api/runs/${later}/cancel`, {});
      expect(browser.errors).toEqual([]);
    });

    it("shows the diagram of seed 000's complete example, coloured by a run's live status", async () => {
      const { page } = browser;
      await page.bringToFront();
      await page.goto(`${url}/workflows/${encodeURIComponent("f/wac/complete")}`);
      await page.locator('.diagram[data-ready="true"]').waitFor({ timeout: 15_000 });
      const ids = await page.locator("[data-node]").evaluateAll((els) => els.map((e) => e.getAttribute("data-node")));
      for (const node of [
        "start",
        "step:run_id",
        "step:started_at",
        "task:fetchPage",
        "task:processChunk",
        "approval:waitForApproval",
        "task:saveResults",
        "sleep:sleep",
        "end",
      ]) {
        expect(ids, node).toContain(node);
      }
      expect(await page.locator(".dg-group").count()).toBe(2);
      await browser.shot("workflow-page-complete");

      const id = await enqueue("f/wac/complete", { baseUrl: dataUrl, pageCount: 3 });
      await untilStatus(id, (s) => s === "waiting");
      await page.goto(`${url}/runs/${encodeURIComponent(id)}`);
      await page.locator('.diagram[data-ready="true"]').waitFor({ timeout: 15_000 });
      // React Flow keeps nodes `visibility: hidden` until a ResizeObserver has measured them,
      // and Chromium may skip those frames for a page that is not in front (the previous test
      // opened and closed a second page): bring it to front, and check the statuses as attributes.
      await page.bringToFront();
      await page.locator('[data-node="task:fetchPage"][data-status="succeeded"]').waitFor({ state: "attached" });
      await page
        .locator('[data-node="approval:waitForApproval"][data-status="waiting"]')
        .waitFor({ state: "attached" });
      expect(await page.locator('[data-node="task:saveResults"]').getAttribute("data-status")).toBe("idle");
      // textContent, not innerText: a re-rendered node is hidden until measured (see above).
      const reps = page.locator('[data-node="task:fetchPage"] .dg-rep');
      await eventually(async () => (await reps.textContent()) === "×3", 10_000);
      expect(await reps.textContent()).toBe("×3");
      await page.setViewportSize({ width: 1440, height: 1560 });
      await page.waitForTimeout(300);
      await browser.shot("run-page", { fullPage: false });
      await page.setViewportSize({ width: 1440, height: 1000 });
      await browser.shot("run-page-waiting");
      await page.getByRole("region", { name: "Approval" }).getByRole("button", { name: "Approve" }).click();
      await page
        .locator('[data-node="task:saveResults"][data-status="succeeded"]')
        .waitFor({ state: "attached", timeout: 15_000 });
      await page
        .locator('[data-node="sleep:sleep"][data-status="sleeping"]')
        .waitFor({ timeout: 5000 })
        .catch(() => undefined);
      await untilStatus(id, (s) => isTerminal(s as never));
      // The end node may be scrolled out of the diagram's viewport (React Flow hides it): its status is what counts.
      await page.locator('[data-node="end"].st-succeeded').waitFor({ state: "attached", timeout: 15_000 });
      await browser.shot("run-page-complete-finished");
      expect(browser.errors).toEqual([]);
    });
  },
  120_000,
);
