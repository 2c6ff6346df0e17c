/**
 * Faults at the HTTP boundary, against a real `sluice server` process: the same id POSTed 50
 * times at once, a property-based fuzzer over every operation of the OpenAPI document, a canary
 * secret that must appear in no answer, log or page, and path traversal in every name that
 * becomes a path.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/http/openapi/document.js";
import { type SluiceProcess, spawnSluice } from "../helpers/processes.js";
import { chaosProject, type ChaosProject, record, type StoreKind, stopAll, untilFinished } from "./harness.js";

const servers: SluiceProcess[] = [];
afterAll(async () => stopAll(servers));

/** A `sluice server` on `p` with a token of `scope` made by the CLI. */
async function serve(p: ChaosProject, scope: string, env: Record<string, string> = {}) {
  const server = spawnSluice(["server", "--port", "0", "--db", p.db], p.root, { CHAOS_LEDGER: p.ledgerFile, ...env });
  servers.push(server);
  await server.waitFor(/API and UI: (http:\/\/127\.0\.0\.1:\d+)/, 60_000);
  const url = /API and UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())![1]!;
  const made = spawnSluice(["token", "create", "--db", p.db, "--scope", scope, "--name", "chaos"], p.root, env);
  expect(await made.exited).toBe(0);
  const token = made.stdout().trim();
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
      signal: AbortSignal.timeout(15_000),
    });
  return { server, url, token, call };
}

for (const kind of ["sqlite", "postgres"] as StoreKind[]) {
  it(`repeated POSTs with one id make one run (${kind})`, async () => {
    const started = Date.now();
    const p = await chaosProject(kind);
    const { call } = await serve(p, "operate");
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        call("POST", "/api/runs", { workflow: "ledger", payload: { steps: 2 }, id: "same" }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    await untilFinished(p.store, ["same"], 30_000);
    const runs = await p.store.listRuns({ workflow: "ledger", limit: 100 });
    const effects = [...p.ledger().values()];
    record({
      fault: "50 concurrent POSTs of one id",
      store: kind,
      injected: "50 requests",
      runs: runs.length,
      lost: runs.length === 1 ? 0 : 1,
      stuck: runs.filter((r) => r.status !== "succeeded").length,
      failed: 0,
      wrong: statuses.filter((s) => s !== 200 && s !== 201).length,
      duplicateEffects: effects.reduce((a, n) => a + n - 1, 0),
      http5xx: statuses.filter((s) => s >= 500).length,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    });
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(49);
    expect(runs.map((r) => [r.id, r.status])).toEqual([["same", "succeeded"]]);
    expect(effects).toEqual([1, 1]);
  });
}

describe("the HTTP API under hostile input (sqlite)", () => {
  it("a fuzzer over every operation: only 4xx for bad input, the server stays up, refused requests change nothing", async () => {
    const started = Date.now();
    const p = await chaosProject("sqlite");
    const { call, server } = await serve(p, "admin");
    const doc = openApiDocument() as { paths: Record<string, Record<string, unknown>> };
    // Streams never end by design; the worker claim long-polls a valid request.
    const skip = new Set(["GET /api/events", "GET /api/runs/{id}/logs/stream"]);
    const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods)
        .map((m) => ({ method: m.toUpperCase(), path }))
        .filter((o) => !skip.has(`${o.method} ${o.path}`)),
    );
    const runsBefore = await p.store.countRuns({});
    let requests = 0;
    let fiveXX = 0;
    let created = 0;
    const failures: string[] = [];
    const segment = fc.oneof(fc.string(), fc.constantFrom("..", "../..", "%2e%2e", "ledger", "a/b", "\u0000", "🙂"));
    const body = fc.oneof(
      fc.jsonValue(),
      fc.string(),
      fc.record({ workflow: fc.oneof(fc.string(), fc.constant("../../etc")), payload: fc.jsonValue() }),
      fc.dictionary(
        fc.constantFrom("__proto__", "constructor", "event", "id", "name", "scope", "steps"),
        fc.jsonValue(),
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ops), segment, segment, body, async (op, a, b, payload) => {
        const path = op.path.replace(/\{[^}]+\}/, encodeURIComponent(a)).replace(/\{[^}]+\}/, encodeURIComponent(b));
        const res = await call(op.method, path, op.method === "GET" || op.method === "DELETE" ? undefined : payload);
        await res.body?.cancel();
        requests++;
        if (res.status >= 500) {
          fiveXX++;
          failures.push(`${op.method} ${path} → ${res.status}`);
        }
        if (op.method === "POST" && op.path === "/api/runs" && res.status === 201) created++;
        return res.status < 500;
      }),
      { numRuns: 600, seed: 20261201 },
    );
    expect((await call("GET", "/api/health")).status).toBe(200);
    expect(server.proc.exitCode).toBeNull();
    const runsAfter = await p.store.countRuns({});
    record({
      fault: "API fuzzer (fast-check, OpenAPI operations)",
      store: "sqlite",
      injected: `${requests} requests`,
      runs: runsAfter - runsBefore,
      lost: 0,
      stuck: 0,
      failed: 0,
      wrong: runsAfter - runsBefore - created,
      duplicateEffects: 0,
      http5xx: fiveXX,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    });
    expect(failures).toEqual([]);
    expect(runsAfter - runsBefore).toBe(created);
  });

  it("a canary secret (SLUICE_SECRET_KEY, a token's secret) appears in no answer, log, page or the database", async () => {
    const started = Date.now();
    const canary = `canary-${Math.random().toString(36).slice(2)}-secret-key`;
    const p = await chaosProject("sqlite", {
      "f/gate.ts": `import { getResumeUrls, waitForApproval, workflow } from "windmill-client";
export const main = workflow(async () => { const urls = await getResumeUrls(); const v = await waitForApproval({ timeout: 60 }); return { urls, v }; });`,
    });
    const { call, url, token, server } = await serve(p, "admin", { SLUICE_SECRET_KEY: canary });
    const tokenSecret = token.split("_").pop()!;
    const id = (
      (await (await call("POST", "/api/runs", { workflow: "f/gate", payload: {} })).json()) as { run: { id: string } }
    ).run.id;
    await call("POST", "/api/runs", { workflow: "ledger", payload: { steps: 1 } });
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && (await p.store.getRun(id))?.status !== "waiting")
      await new Promise((r) => setTimeout(r, 100));
    const bodies: string[] = [];
    const doc = openApiDocument() as { paths: Record<string, Record<string, unknown>> };
    for (const [path, methods] of Object.entries(doc.paths)) {
      if (!("get" in methods) || path.includes("stream") || path === "/api/events") continue;
      const filled = path
        .replace("{id}", encodeURIComponent(id))
        .replace("{name}", "f%2Fgate")
        .replace("{workflow}", "ledger")
        .replace("{key}", "waitForApproval");
      bodies.push(await (await call("GET", filled)).text());
    }
    const steps = await p.store.getSteps(id);
    const urls = JSON.parse(steps.find((s) => s.kind === "step")?.value ?? "{}") as Record<string, string>;
    for (const link of Object.values(urls))
      if (link.includes("/approve/")) bodies.push(await (await fetch(link)).text());
    const index = await (await fetch(`${url}/`)).text();
    bodies.push(index);
    for (const m of index.matchAll(/(?:src|href)="(\/[^"]+)"/g))
      bodies.push(await (await fetch(`${url}${m[1]}`)).text());
    const database = readFileSync(join(p.root, ".sluice", "sluice.db")).toString("latin1");
    const places = { answers: bodies.join("\n"), logs: server.output(), database };
    const leaks = Object.entries(places).flatMap(([where, text]) =>
      [canary, tokenSecret]
        .filter((s) => text.includes(s))
        .map((s) => `${where} contains ${s === canary ? "SLUICE_SECRET_KEY" : "the token secret"}`),
    );
    record({
      fault: "canary secret in answers, logs, UI, database",
      store: "sqlite",
      injected: `${bodies.length} answers and pages scanned`,
      runs: 2,
      lost: 0,
      stuck: 0,
      failed: 0,
      wrong: leaks.length,
      duplicateEffects: 0,
      http5xx: 0,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      note: leaks.join("; "),
    });
    expect(bodies.length).toBeGreaterThan(10);
    expect(leaks).toEqual([]);
  });

  it("path traversal in names that become paths is refused and reads no file outside the project", async () => {
    const started = Date.now();
    const p = await chaosProject("sqlite");
    const { call, url } = await serve(p, "admin");
    const evil = [
      "../../../../etc/passwd",
      "..%2F..%2F..%2F..%2Fetc%2Fpasswd",
      "f/../../../../etc/passwd",
      "/etc/passwd",
    ];
    const answers: Array<{ what: string; status: number; text: string }> = [];
    const get = async (what: string, path: string) => {
      const r = await call("GET", path);
      answers.push({ what, status: r.status, text: await r.text() });
    };
    for (const e of evil) {
      const enc = encodeURIComponent(e);
      await get("workflow", `/api/workflows/${enc}`);
      await get("diagram", `/api/workflows/${enc}/diagram`);
      await get("run", `/api/runs/${enc}`);
      await get("logs", `/api/runs/${enc}/logs`);
      const run = await call("POST", "/api/runs", { workflow: e, payload: {} });
      answers.push({ what: "enqueue", status: run.status, text: await run.text() });
      const script = await call("POST", `/api/pipelines/scripts/${enc}/run`, {});
      answers.push({ what: "pipeline script", status: script.status, text: await script.text() });
      const hook = await call("POST", `/api/pipelines/webhook/${enc}`, {});
      answers.push({ what: "webhook", status: hook.status, text: await hook.text() });
      const page = await fetch(`${url}/${e}`);
      answers.push({ what: "static", status: page.status, text: await page.text() });
    }
    const leaked = answers.filter((a) => /root:.*:0:0:/.test(a.text));
    const errors = answers.filter((a) => a.status >= 500);
    const accepted = answers.filter((a) => a.what !== "static" && a.status < 400);
    record({
      fault: "path traversal in names",
      store: "sqlite",
      injected: `${answers.length} requests`,
      runs: 0,
      lost: 0,
      stuck: 0,
      failed: 0,
      wrong: leaked.length + accepted.length,
      duplicateEffects: 0,
      http5xx: errors.length,
      seconds: Math.round((Date.now() - started) / 100) / 10,
    });
    expect(leaked.map((a) => a.what)).toEqual([]);
    expect(errors.map((a) => `${a.what} ${a.status}`)).toEqual([]);
    expect(accepted.map((a) => `${a.what} ${a.status}`)).toEqual([]);
  });
});
