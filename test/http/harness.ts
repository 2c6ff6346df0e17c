/**
 * An HTTP app on a real engine: a throwaway project (Tako workflows and workflows as
 * code with approvals) loaded into an engine on a real SQLite file with an embedded
 * worker, a clock that can skip ahead, and API tokens of each scope.
 */
import { join } from "node:path";
import { createEngine, type Engine } from "../../src/index.js";
import { createApp, type SluiceApp } from "../../src/http/app.js";
import type { AuthConfig } from "../../src/http/auth/identity.js";
import { ApiTokens } from "../../src/http/auth/tokens.js";
import { Project } from "../../src/loader/project.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/store.js";
import { isTerminal, type RunRecord } from "../../src/store/types.js";
import { SkippableClock } from "../helpers/clock.js";
import { makeProject } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";

/** Workflow modules of the test project. */
export const FILES: Record<string, string> = {
  "workflows/hello.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("hello", {
  handler: async (p: { name?: string }, ctx) => {
    const text = await ctx.run("greet", () => { console.log("greeting " + (p.name ?? "world")); return "hello " + (p.name ?? "world"); });
    return { text };
  },
});`,
  "workflows/slow.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("slow", {
  handler: async (p: { ms?: number }, ctx) => {
    await ctx.run("first", () => console.log("first line"));
    await ctx.sleep("pause", p.ms ?? 400);
    await ctx.run("second", () => console.log("second line"));
    return "done";
  },
});`,
  "workflows/fails.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("fails", {
  retries: 0,
  handler: async (p: { ok?: boolean }, ctx) => {
    await ctx.run("try", () => { if (!globalThis.__sluiceFixed) throw new Error("boom"); return 1; });
    return "recovered";
  },
});`,
  "workflows/waiter.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("waiter", {
  handler: async (_p, ctx) => ctx.waitFor("go", { timeout: "1h" }),
});`,
  "workflows/nightly.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("nightly", { schedule: "0 3 * * *", handler: async () => "ran" });`,
  "f/gate.ts": `import { step, waitForApproval, workflow, getResumeUrls } from "windmill-client";
export const main = workflow(async (env: string) => {
  const urls = await step("urls", () => getResumeUrls());
  const approval = await waitForApproval({
    timeout: 3600,
    selfApproval: false,
    form: {
      type: "object",
      properties: {
        reason: { type: "string", description: "Why?" },
        environment: { type: "string", enum: ["staging", "production"] },
        priority: { type: "integer" },
        notify: { type: "boolean" },
      },
      required: ["reason"],
      order: ["environment", "reason"],
    },
  });
  return { env, approval, urls };
});`,
  "f/tasks.ts": `import { step, task, workflow } from "windmill-client";
async function shout(word: string) {
  console.log("shouting " + word);
  return word.toUpperCase();
}
export const main = workflow(async () => {
  await step("begin", () => console.log("begin"));
  const a = await task(shout)("a");
  const b = await task(shout)("b");
  return a + b;
});`,
  "f/open_gate.ts": `import { step, waitForApproval, workflow, getResumeUrls } from "windmill-client";
export const main = workflow(async () => {
  const urls = await step("urls", () => getResumeUrls());
  const named = await step("named", () => getResumeUrls("bob"));
  const approval = await waitForApproval({ timeout: 600 });
  return { approval, urls, named };
});`,
};

/** A running test app. */
export interface HttpHarness {
  app: SluiceApp;
  engine: Engine;
  store: SqliteStore;
  clock: SkippableClock;
  root: string;
  tokens: { metrics: string; read: string; operate: string; worker: string; admin: string };
  /** `app.request` with an optional bearer token and JSON body. */
  call(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Response>;
  /** Enqueues through the engine and waits until the run matches `until`. */
  start(
    workflow: string,
    payload: unknown,
    options?: { createdBy?: string; until?: (r: RunRecord) => boolean },
  ): Promise<RunRecord>;
  waitFor(id: string, until: (r: RunRecord) => boolean): Promise<RunRecord>;
  close(): Promise<void>;
}

/** Starts an app on a fresh project and database. */
export async function startHarness(
  auth: AuthConfig = { mode: "tokens" },
  appOptions: { traceUrl?: string } = {},
): Promise<HttpHarness> {
  const root = makeProject(FILES, "sluice-http-");
  const clock = new SkippableClock();
  const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db"), clock, pollMs: 20 });
  const engine = createEngine({
    store,
    scheduler: { tickMs: 50 },
    worker: { pollMs: 20 },
    baseUrl: "http://127.0.0.1:7777",
  });
  await engine.start();
  const report = await new Project(root, engine).loadAll();
  if (report.errors.length) throw new Error(report.errors.map((e) => e.error.message).join("\n"));
  const app = createApp({ engine, auth, clock, projectRoot: root, uiDir: null, ...appOptions });
  const t = new ApiTokens(store, clock);
  const tokens = {
    metrics: (await t.create({ name: "prometheus", scope: "metrics" })).token,
    read: (await t.create({ name: "reader", scope: "read" })).token,
    operate: (await t.create({ name: "olivia", scope: "operate" })).token,
    worker: (await t.create({ name: "wendy", scope: "worker" })).token,
    admin: (await t.create({ name: "ada", scope: "admin" })).token,
  };
  const waitFor = (id: string, until: (r: RunRecord) => boolean) =>
    eventually(async () => {
      const r = await store.getRun(id);
      return r && until(r) ? r : null;
    }, 15_000);
  return {
    app,
    engine,
    store,
    clock,
    root,
    tokens,
    call(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
      let body: string | undefined;
      if (options.body !== undefined) {
        body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
        headers["content-type"] ??= "application/json";
      }
      return Promise.resolve(app.request(path, { method, headers, body }));
    },
    async start(workflow, payload, options = {}) {
      const handle = await engine.enqueueRun(workflow, payload, { createdBy: options.createdBy });
      return waitFor(handle.id, options.until ?? ((r) => isTerminal(r.status)));
    },
    waitFor,
    async close() {
      await engine.stop({ drainMs: 1000 });
      await store.close();
    },
  };
}

/** Resolves once a waiting run has a pending approval step. */
export function awaitingApproval(r: RunRecord): boolean {
  return r.status === "waiting";
}
