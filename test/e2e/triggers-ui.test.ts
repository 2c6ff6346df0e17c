/**
 * The Triggers page in headless Chromium: a trigger's state, messages and last run, and the
 * Pause / Resume button acting on the consumer. The consumer is a stand-in handing over one
 * message (the real brokers are in test/triggers/); the engine, store and API are real.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.js";
import { startHttpServer, type HttpServer } from "../../src/http/server.js";
import { createEngine, defineWorkflow, type Engine } from "../../src/index.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/store.js";
import type { ConsumerContext } from "../../src/triggers/runtime/consumer.js";
import { TriggerSupervisor } from "../../src/triggers/runtime/supervisor.js";
import { engineEnqueue } from "../../src/triggers/runtime/targets.js";
import { parseConfigTriggers } from "../../src/triggers/spec.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { type Browser, launch, skipReason } from "./browser.js";

const skip = skipReason();

describe.skipIf(skip !== null)(`Triggers page in headless Chromium${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let store: SqliteStore;
  let engine: Engine;
  let http: HttpServer;
  let browser: Browser;
  let supervisor: TriggerSupervisor;
  const started: ConsumerContext[] = [];
  let stops = 0;
  const specs = parseConfigTriggers([
    { name: "orders", kind: "nats", target: "w", url: "nats://127.0.0.1:4222", stream: "ORDERS" },
  ]);

  beforeAll(async () => {
    store = openSqliteStore({ path: join(tempDir("sluice-triggers-ui-"), "sluice.db"), pollMs: 20 });
    engine = createEngine({ store, worker: false, scheduler: false });
    await engine.register([defineWorkflow<{ n: number }>("w", { handler: async (p) => p.n })]);
    await engine.start();
    supervisor = new TriggerSupervisor({
      store,
      enqueue: engineEnqueue(engine, null),
      tickMs: 100,
      consumerFor: async () => async (cx) => {
        started.push(cx);
        return {
          async stop() {
            stops++;
          },
        };
      },
    });
    await supervisor.sync(specs);
    await started[0]!.deliver({ identity: "nats:ORDERS:1", bytes: Buffer.from('{"n":1}'), subject: "orders.eu" });
    await supervisor.tick();
    const app = createApp({ engine, auth: { mode: "off", user: "erin" }, triggers: { specs: () => specs } });
    http = await startHttpServer((req, env) => app.fetch(req, env), { port: 0 });
    browser = await launch();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await http?.close();
    await supervisor?.stop();
    await engine?.stop({ drainMs: 100 });
    await store?.close();
  });

  it("lists the trigger with its state and last run, and pauses and resumes it", async () => {
    const { page } = browser;
    await page.goto(`${http.url}/triggers`);
    const row = page.locator('tr[data-trigger="orders"]');
    await row.waitFor();
    const cells = await row.locator("td").allInnerTexts();
    expect(cells.slice(0, 5)).toEqual(["orders nats", "nats://127.0.0.1:4222 stream ORDERS", "w", "running", "1"]);
    expect(await row.getByRole("link", { name: "run" }).getAttribute("href")).toBe(
      `/runs/${encodeURIComponent((await store.listRuns({ workflow: "w", limit: 1 }))[0]!.id)}`,
    );
    await browser.shot("triggers");
    await row.getByRole("button", { name: "Pause" }).click();
    await row.getByRole("button", { name: "Resume" }).waitFor();
    await eventually(() => stops === 1, 5000);
    await eventually(async () => (await row.locator("td").nth(3).innerText()) === "paused", 10_000);
    await row.getByRole("button", { name: "Resume" }).click();
    await eventually(() => started.length === 2, 5000);
    expect(browser.errors).toEqual([]);
  }, 60_000);
});
