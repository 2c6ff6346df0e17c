/**
 * `/api/triggers` and the trigger loop on a real engine and SQLite file. The consumer here is
 * a stand-in that hands over messages the way a broker client does (the loop, the enqueue
 * and the state are what is tested; the real brokers are in test/triggers/).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type SluiceApp } from "../../src/http/app.js";
import { createEngine, defineWorkflow, type Engine } from "../../src/index.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/store.js";
import type { ConsumerContext } from "../../src/triggers/runtime/consumer.js";
import { TriggerSupervisor } from "../../src/triggers/runtime/supervisor.js";
import { engineEnqueue } from "../../src/triggers/runtime/targets.js";
import { parseConfigTriggers } from "../../src/triggers/spec.js";
import { tempDir } from "../helpers/tmp.js";

let engine: Engine;
let store: SqliteStore;
let app: SluiceApp;
let supervisor: TriggerSupervisor;
const started: ConsumerContext[] = [];
let stops = 0;
const specs = parseConfigTriggers([{ name: "t1", kind: "mqtt", target: "w", url: "mqtt://127.0.0.1:1", topic: "x/#" }]);
const msg = (n: number) => ({ bytes: Buffer.from(JSON.stringify({ n })), topic: "x/y" });

beforeAll(async () => {
  store = openSqliteStore({ path: join(tempDir("sluice-triggers-api-"), "sluice.db"), pollMs: 20 });
  engine = createEngine({ store, worker: false, scheduler: false });
  await engine.register([defineWorkflow<{ n: number }>("w", { handler: async (p) => p.n })]);
  await engine.start();
  app = createApp({ engine, auth: { mode: "off" }, uiDir: null, triggers: { specs: () => specs } });
  supervisor = new TriggerSupervisor({
    store,
    enqueue: engineEnqueue(engine, null),
    holder: "test-server",
    consumerFor: async () => async (cx) => {
      started.push(cx);
      return {
        async stop() {
          stops++;
        },
      };
    },
  });
});
afterAll(async () => {
  await supervisor?.stop();
  await engine?.stop({ drainMs: 100 });
  await store?.close();
});

const get = async () => ((await (await app.request("/api/triggers")).json()) as { triggers: any[] }).triggers;
const post = (path: string) => app.request(path, { method: "POST" });

describe("/api/triggers and the trigger loop", () => {
  it("lists a consumed trigger with its messages and last run; a redelivered message finds its run", async () => {
    await supervisor.sync(specs);
    expect(started.length).toBe(1);
    const cx = started[0]!;
    await cx.deliver(msg(1));
    await cx.deliver(msg(2));
    await cx.deliver(msg(1)); // delivered again (no ack reached the source)
    await supervisor.tick();
    const runs = await store.listRuns({ workflow: "w", limit: 10 });
    expect(runs.length).toBe(2);
    const [t] = await get();
    expect(t).toMatchObject({
      id: "t1",
      kind: "mqtt",
      status: "running",
      holder: "test-server",
      messages: 3,
      configuredIn: "sluice.json",
      source: "mqtt://127.0.0.1:1 x/#",
      lastRunId: runs.find((r) => r.payload?.includes('"n":1'))?.id,
    });
    expect(JSON.parse(t.lastMessage)).toEqual({ trigger: "t1", kind: "mqtt", body: { n: 1 }, topic: "x/y" });
  });

  it("pauses and resumes through the API: the consumer stops, then starts again", async () => {
    const res = await post("/api/triggers/t1/pause");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: "t1", paused: true, changed: true });
    expect(await (await post("/api/triggers/t1/pause")).json()).toMatchObject({ changed: false });
    await supervisor.tick();
    expect(stops).toBe(1);
    expect((await get())[0]).toMatchObject({ status: "paused", paused: true });
    await post("/api/triggers/t1/resume");
    await supervisor.tick();
    expect(started.length).toBe(2);
    expect((await get())[0]).toMatchObject({ status: "running", paused: false });
    const missing = await post("/api/triggers/nope/pause");
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error).toMatchObject({ code: "TRIGGER_NOT_FOUND" });
  });

  it("a failed consumer shows its error and is restarted after a backoff", async () => {
    started[1]!.fail(new Error("connection refused"));
    await supervisor.tick();
    expect((await get())[0]).toMatchObject({ status: "error", lastError: "connection refused" });
    await new Promise((r) => setTimeout(r, 1100));
    await supervisor.tick();
    expect(started.length).toBe(3);
    expect((await get())[0]).toMatchObject({ status: "running" });
  });

  it("shows stopped once no server consumes it", async () => {
    await supervisor.stop();
    expect((await get())[0]).toMatchObject({ status: "stopped" });
  });
});
