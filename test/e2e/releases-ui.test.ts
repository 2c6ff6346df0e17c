/**
 * The Releases pages in headless Chromium: two releases published by the real `sluice deploy`
 * (as user "ana"), a run executed by a real `sluice worker --release` in an empty folder, then the
 * list (who, when, what changed), one release's changes with the line diff of its file, and the
 * run page naming the release the run used. The API is served in-process on the same SQLite file.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { startHttpServer, type HttpServer } from "../../src/http/server.js";
import { createEngine, type Engine } from "../../src/index.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/store.js";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject, writeFiles } from "../helpers/project.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { type Browser, launch, skipReason } from "./browser.js";

const skip = skipReason();

const hello = (answer: string) => `import { defineWorkflow } from "sluice";

export const hello = defineWorkflow("hello", { handler: async () => "${answer}" });
`;

/** Runs the real CLI as user "ana" and fails with its output when it exits non-zero. */
async function cli(cwd: string, ...args: string[]): Promise<string> {
  const p = spawnSluice(args, cwd, { SLUICE_USER: "ana" });
  const code = await p.exited;
  if (code !== 0) throw new Error(`sluice ${args.join(" ")} exited ${code}: ${p.output()}`);
  return p.stdout();
}

describe.skipIf(skip !== null)(`Releases pages in headless Chromium${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let store: SqliteStore;
  let engine: Engine;
  let http: HttpServer;
  let browser: Browser;
  let runId: string;

  beforeAll(async () => {
    const db = join(tempDir("sluice-releases-ui-"), "shared.db");
    const deployer = makeProject({ "workflows/hello.ts": hello("v1") }, "sluice-releases-ui-deployer-");
    await cli(deployer, "deploy", "--db", db);
    writeFiles(deployer, { "workflows/hello.ts": hello("v2") });
    await cli(deployer, "deploy", "--db", db);
    const machine = tempDir("sluice-releases-ui-machine-");
    const worker = spawnSluice(["worker", "--release", "--db", db], machine);
    await worker.waitFor(/worker .* ready/, 30_000);
    runId = JSON.parse(await cli(machine, "enqueue", "hello", "{}", "--db", db, "--json")).id;
    store = openSqliteStore({ path: db, pollMs: 20 });
    await eventually(async () => (await store.getRun(runId))?.status === "succeeded", 20_000);
    worker.proc.kill("SIGTERM");
    await worker.exited;
    engine = createEngine({ store, worker: false, scheduler: false });
    await engine.start();
    const app = createApp({ engine, auth: { mode: "off", user: "erin" } });
    http = await startHttpServer((req, env) => app.fetch(req, env), { port: 0 });
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await http?.close();
    await engine?.stop({ drainMs: 100 });
    await store?.close();
  });

  it("lists the releases newest first: who, when, what changed, the current one marked", async () => {
    const { page } = browser;
    await page.goto(`${http.url}/releases`);
    const second = page.locator('tr[data-release="2"]');
    await second.waitFor();
    expect(
      await page.locator("tr[data-release]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-release"))),
    ).toEqual(["2", "1"]);
    const cells = await second.locator("td").allInnerTexts();
    expect(cells[0]).toContain("Release 2");
    expect(cells[0]).toContain("current");
    expect(cells[1]).toMatch(/ago|just now|s$/);
    expect(cells[2]).toBe("ana");
    expect(cells[3]).toBe("~1 workflows · ~1 files");
    expect(await page.locator('tr[data-release="1"] td').nth(3).innerText()).toBe("+1 workflows · +1 files");
    expect(await page.locator('tr[data-release="1"]').innerText()).not.toContain("current");
    await browser.shot("releases");
    expect(browser.errors).toEqual([]);
  });

  it("shows one release's changes and the line diff of the file it changed", async () => {
    const { page } = browser;
    await page.goto(`${http.url}/releases`);
    await page.getByRole("link", { name: "Release 2" }).click();
    await page.getByRole("heading", { name: "Release 2" }).waitFor();
    await page.getByText("Changes against release 1.").waitFor();
    expect(await page.locator('[data-kind="workflows"] li').allInnerTexts()).toEqual(["~ hello"]);
    expect(await page.locator('[data-kind="schedules"]').innerText()).toContain("no change");
    const file = page.locator('[data-file="workflows/hello.ts"]');
    await file.waitFor();
    expect(await file.locator("tr.diff-del .diff-text").allInnerTexts()).toEqual([
      'export const hello = defineWorkflow("hello", { handler: async () => "v1" });',
    ]);
    expect(await file.locator("tr.diff-add .diff-text").allInnerTexts()).toEqual([
      'export const hello = defineWorkflow("hello", { handler: async () => "v2" });',
    ]);
    expect(await file.locator("tr.diff-same").count()).toBe(2);
    await browser.shot("release-2", { fullPage: true });
    expect(browser.errors).toEqual([]);
  });

  it("the run page names the release the run used, linking to it", async () => {
    const { page } = browser;
    await page.goto(`${http.url}/runs/${encodeURIComponent(runId)}`);
    const cell = page.getByTestId("run-release");
    await cell.getByRole("link", { name: "release 2" }).waitFor();
    await cell.getByRole("link", { name: "release 2" }).click();
    await page.getByRole("heading", { name: "Release 2" }).waitFor();
    expect(browser.errors).toEqual([]);
  });
});
