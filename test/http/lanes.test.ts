/**
 * `GET /api/lanes`: the lanes of a server's lane supervisor, which starts real
 * `sluice worker` processes (bin/sluice.js; `npm run build` first) as work arrives.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ApiLanes } from "../../src/http/api-types.js";
import { createApp } from "../../src/http/app.js";
import { ApiTokens } from "../../src/http/auth/tokens.js";
import { createEngine, type Engine } from "../../src/index.js";
import { writeBuildManifest } from "../../src/lanes/build-manifest.js";
import { workerSpawner } from "../../src/lanes/spawn.js";
import { LaneSupervisor } from "../../src/lanes/supervisor.js";
import { Project } from "../../src/loader/project.js";
import { makeProject } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";
import { startHarness } from "./harness.js";

const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

describe("GET /api/lanes", () => {
  it("answers supervised: false where no supervisor runs, and needs a read token", async () => {
    const h = await startHarness();
    cleanup.push(() => h.close());
    expect((await h.call("GET", "/api/lanes")).status).toBe(401);
    const res = await h.call("GET", "/api/lanes", { token: h.tokens.read });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ supervised: false, lanes: [] });
  });

  it("shows a lane's worker process while it works, and the lane idle once it exited", async () => {
    const root = makeProject({
      "workflows/slow.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("slow", { worker: "batch", handler: async (_p, ctx) => ctx.run("work", async () => { await new Promise((r) => setTimeout(r, 1500)); return process.pid; }) });
`,
    });
    const database = join(root, ".sluice", "sluice.db");
    const engine: Engine = createEngine({ database, worker: false, scheduler: false, captureConsole: false });
    const loader = new Project(root, engine);
    await loader.loadAll();
    await engine.start();
    const output: string[] = [];
    const lanes = new LaneSupervisor({
      store: engine.store,
      events: engine.events,
      workflows: () => engine.registry.names(),
      localServer: null,
      serverName: "api-test",
      spawner: workerSpawner({
        root,
        database,
        idleMs: 200,
        concurrency: 10,
        drainMs: 5_000,
        server: null,
        env: process.env,
        buildFile: () => writeBuildManifest(root, loader.builds()),
        output: (line) => void output.push(line),
      }),
      log: (line) => void output.push(line),
    });
    await lanes.start();
    cleanup.push(async () => {
      await lanes.stop(5_000);
      await engine.stop();
    });
    const app = createApp({ engine, auth: { mode: "tokens" }, uiDir: null, lanes });
    const token = (await new ApiTokens(engine.store).create({ name: "reader", scope: "read" })).token;
    const get = async (): Promise<ApiLanes> => {
      const res = await app.request("/api/lanes", { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      return (await res.json()) as ApiLanes;
    };

    expect(await get()).toEqual({ supervised: true, lanes: [] });
    const handle = await engine.enqueueRun("slow", {});
    const busy = await eventually(async () => {
      const body = await get();
      return body.lanes[0]?.mode === "running" ? body : null;
    }, 30_000);
    const run = await eventually(async () => {
      const r = await engine.store.getRun(handle.id);
      return r?.status === "succeeded" ? r : null;
    }, 30_000);
    // The process the API showed is the one that ran the step.
    expect(busy.lanes).toEqual([
      {
        group: "batch",
        mode: "running",
        pid: JSON.parse(run.result!),
        draining: [],
        error: null,
        command: null,
        workflows: null,
      },
    ]);
    const idle = await eventually(async () => {
      const body = await get();
      return body.lanes[0]?.mode === "idle" ? body : null;
    }, 30_000);
    expect(idle).toEqual({
      supervised: true,
      lanes: [{ group: "batch", mode: "idle", pid: null, draining: [], error: null, command: null, workflows: null }],
    });
  }, 60_000);
});
