/**
 * The Schedules page in headless Chromium (it shares its table, live refresh and Pause / Resume
 * with the Triggers page, `components/PausableTable.tsx`): a workflow's cron row with its next
 * fire, and the button pausing and resuming it in the store. Engine, store and API are real.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { startHttpServer, type HttpServer } from "../../src/http/server.js";
import { createEngine, defineWorkflow, type Engine } from "../../src/index.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/store.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { type Browser, launch, skipReason } from "./browser.js";

const skip = skipReason();

describe.skipIf(skip !== null)(`Schedules page in headless Chromium${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let store: SqliteStore;
  let engine: Engine;
  let http: HttpServer;
  let browser: Browser;

  beforeAll(async () => {
    store = openSqliteStore({ path: join(tempDir("sluice-schedules-ui-"), "sluice.db"), pollMs: 20 });
    // The scheduler writes the schedules to the store (its tick is long: nothing fires here).
    engine = createEngine({ store, worker: false, scheduler: { tickMs: 60_000 } });
    await engine.register([
      defineWorkflow("report", { schedule: { cron: "0 9 * * 1-5", timezone: "Europe/Paris" }, handler: async () => 1 }),
    ]);
    await engine.start();
    const app = createApp({ engine, auth: { mode: "off", user: "erin" } });
    http = await startHttpServer((req, env) => app.fetch(req, env), { port: 0 });
    browser = await launch();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await http?.close();
    await engine?.stop({ drainMs: 100 });
    await store?.close();
  });

  it("lists the schedule with its next fire, and pauses and resumes it", async () => {
    const { page } = browser;
    await page.goto(`${http.url}/schedules`);
    const row = page.locator('tr[data-schedule="report"]');
    await row.waitFor();
    const cells = await row.locator("td").allInnerTexts();
    expect(cells[0]).toBe("report");
    expect(cells[1]).toBe("0 9 * * 1-5 Europe/Paris");
    // Fire times on the schedule's own clock, its zone named: 9:00 in Paris whatever the browser's zone.
    expect(cells[2]).toMatch(/^in \d+ \w+ · \w{3} \d+, 09:00:00 Europe\/Paris$/);
    expect(cells[3]).toMatch(/^(\w{3} \d+, 09:00:00, ){2}\w{3} \d+, 09:00:00 Europe\/Paris$/);
    expect(cells[4]).toBe("never");
    expect(cells[5]).toBe("Active");
    expect(cells[6]).toBe("process");
    const paused = async () => (await store.listSchedules()).find((s) => s.workflow === "report")?.paused;
    await row.getByRole("button", { name: "Pause" }).click();
    await row.getByRole("button", { name: "Resume" }).waitFor();
    await eventually(async () => (await paused()) === true, 5000);
    expect(await row.locator("td").nth(5).innerText()).toBe("Paused");
    expect(await row.locator("td").nth(2).innerText()).toBe("paused");
    await row.getByRole("button", { name: "Resume" }).click();
    await row.getByRole("button", { name: "Pause" }).waitFor();
    await eventually(async () => (await paused()) === false, 5000);
    expect(browser.errors).toEqual([]);
  }, 60_000);
});
