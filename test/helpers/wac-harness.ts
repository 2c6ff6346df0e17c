/**
 * Runs the project in examples/ (copied to a temp folder) on a real SQLite file with an
 * embedded worker, a local HTTP server standing in for the network, and a clock that
 * can skip ahead over durable sleeps.
 */
import { cpSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { createEngine, type Engine } from "../../src/index.js";
import { Project } from "../../src/loader/project.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { isTerminal, type RunRecord } from "../../src/store/types.js";
import { SkippableClock } from "./clock.js";
import { PYTHON_ON_PROTOCOL, servePythonOverProtocol } from "./python-protocol.js";
import { makeProject, REPO } from "./project.js";
import { delay } from "./tmp.js";
import { blocksOf, nextTimer } from "../../src/testing/blocked.js";

/** A running examples project. */
export interface ExamplesHarness {
  root: string;
  engine: Engine;
  clock: SkippableClock;
  /** Base URL of the local HTTP server. */
  http: string;
  /** Requests the server saw, by path. */
  hits: Map<string, number>;
  /** Runs a workflow to its end, skipping durable sleeps; `onWaiting` is called while it waits on something else. */
  runToEnd(
    workflow: string,
    payload: unknown,
    options?: { createdBy?: string; onWaiting?: (run: RunRecord) => Promise<void> | void; timeoutMs?: number },
  ): Promise<RunRecord>;
  close(): Promise<void>;
}

/** Responses of the stand-in network. */
function handler(hits: Map<string, number>) {
  return (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://x");
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === "/data")
      return send(
        200,
        Array.from({ length: 7 }, (_, i) => ({ id: i + 1 })),
      );
    if (url.pathname === "/page")
      return send(200, [
        { page: Number(url.searchParams.get("page")), item: 1 },
        { page: Number(url.searchParams.get("page")), item: 2 },
      ]);
    if (url.pathname.startsWith("/api/")) return send(200, [{ source: url.pathname }, { source: url.pathname }]);
    if (url.pathname === "/submit") {
      const n = hits.get("/submit")!;
      const failures = Number(process.env.SUBMIT_FAILURES ?? "0");
      return n <= failures ? send(503, { error: "try later" }) : send(200, { accepted: true, attempt: n });
    }
    send(404, { error: "not found" });
  };
}

/** What project the harness runs. */
export interface ExamplesOptions {
  /** Folder copied as the project (default: the repository's examples/). */
  from?: string;
  /** Extra files written into the project (path → text). */
  files?: Record<string, string>;
}

/** Starts the harness. */
export async function startExamples(options: ExamplesOptions = {}): Promise<ExamplesHarness> {
  const root = makeProject(options.files ?? {}, "sluice-examples-");
  const from = options.from ?? join(REPO, "examples");
  cpSync(from, root, {
    recursive: true,
    filter: (src) => !src.includes(`${join(from, ".sluice")}`),
  });
  rmSync(join(root, ".sluice"), { recursive: true, force: true });
  const hits = new Map<string, number>();
  const server: Server = createServer(handler(hits));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  const http = `http://127.0.0.1:${port}`;
  process.env.SUBMIT_API_URL = `${http}/submit`;
  // Python examples: the httpx stand-in (test/fixtures/python-shims) sends *.example.com here.
  process.env.SLUICE_TEST_HTTP = http;
  process.env.PYTHONPATH = join(REPO, "test", "fixtures", "python-shims");
  const clock = new SkippableClock();
  const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db"), clock });
  const engine = createEngine({ store, scheduler: false, worker: { pollMs: 50 } });
  await engine.start();
  const project = new Project(root, engine);
  if (PYTHON_ON_PROTOCOL) project.python.useProtocol();
  const report = await project.loadAll();
  if (report.errors.length)
    throw new Error(`examples failed to load: ${report.errors.map((e) => e.error.message).join("\n")}`);
  const protocol = PYTHON_ON_PROTOCOL ? await servePythonOverProtocol(engine, project) : null;

  async function runToEnd(
    workflow: string,
    payload: unknown,
    options: Parameters<ExamplesHarness["runToEnd"]>[2] = {},
  ): Promise<RunRecord> {
    const handle = await engine.enqueueRun(workflow, payload, { createdBy: options.createdBy });
    const deadline = Date.now() + (options.timeoutMs ?? 20_000);
    for (;;) {
      const run = (await store.getRun(handle.id))!;
      if (isTerminal(run.status)) return run;
      if (Date.now() > deadline) throw new Error(`run ${run.id} of ${workflow} did not finish (status ${run.status})`);
      const busy = await store.countRuns({ status: ["pending", "running"] });
      if (busy === 0 && run.status === "waiting") {
        const timer = nextTimer(await store.listRuns({ status: "waiting", limit: 1000 }));
        const onlyTimers = blocksOf(await store.getSteps(run.id)).length === 0;
        if (onlyTimers && timer !== null) {
          clock.advance(Math.max(0, timer - clock.now()) + 1);
          engine.events.emit("work");
        } else if (options.onWaiting) await options.onWaiting(run);
      }
      await delay(15);
    }
  }

  return {
    root,
    engine,
    clock,
    http,
    hits,
    runToEnd,
    async close() {
      await protocol?.close();
      await engine.stop({ drainMs: 1000 });
      project.python.close();
      await store.close();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
