import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/http/openapi/document.js";
import { startHarness, type HttpHarness } from "./harness.js";

let h: HttpHarness;
let runId: string;
beforeAll(async () => {
  h = await startHarness();
  runId = (await h.start("hello", { name: "auth" })).id;
});
afterAll(async () => h?.close());

type Caller = "none" | "bad" | "metrics" | "read" | "operate" | "worker" | "admin";
const CALLERS: Caller[] = ["none", "bad", "metrics", "read", "operate", "worker", "admin"];
const RANK = { metrics: 0, read: 1, operate: 2, worker: 3, admin: 4 } as const;

/** A fresh anonymous approval link set (each link decides once; later uses are 409, never 401/403). */
async function freshLinks() {
  const run = await h.start("f/open_gate", {}, { until: (r) => r.status === "waiting" });
  const urls = JSON.parse((await h.store.getSteps(run.id)).find((s) => s.key === "urls")!.value!);
  return urls as { approvalPage: string; resume: string; cancel: string };
}
const local = (url: string) => new URL(url).pathname + new URL(url).search;

/** A concrete request for each documented operation. */
async function requestFor(method: string, template: string): Promise<{ path: string; body?: unknown; form?: boolean }> {
  const enc = encodeURIComponent;
  switch (`${method} ${template}`) {
    case "POST /api/runs":
      return { path: template, body: { workflow: "hello", payload: { name: "matrix" } } };
    case "POST /api/pipelines/plan":
      return { path: template, body: { folder: "f/demo", dryRun: true } };
    case "POST /api/signals":
      return { path: template, body: { event: "nobody-waits" } };
    case "POST /api/tokens":
      return { path: template, body: { name: "matrix", scope: "read" } };
    case "DELETE /api/tokens/{id}":
      return { path: "/api/tokens/0000000000000000" };
    case "POST /api/runs/{id}/approvals/{key}":
      return { path: `/api/runs/${enc(runId)}/approvals/waitForApproval`, body: { approve: true } };
    case "POST /api/runs/{id}/approvals/{key}/resume":
      return { path: local((await freshLinks()).resume) };
    case "POST /api/runs/{id}/approvals/{key}/cancel":
      return { path: local((await freshLinks()).cancel) };
    case "GET /approve/{id}/{key}":
      return { path: local((await freshLinks()).approvalPage) };
    case "POST /approve/{id}/{key}":
      return { path: local((await freshLinks()).approvalPage), form: true };
    case "POST /api/schedules/{workflow}/pause":
    case "POST /api/schedules/{workflow}/resume":
      return { path: template.replace("{workflow}", "nightly") };
  }
  return {
    path: template.replace("{id}", enc(runId)).replace("{name}", "hello").replace("{script}", "f/demo/extract.py"),
  };
}

function expectedFor(scope: string, caller: Caller): "ok" | 401 | 403 {
  if (caller === "bad") return 401;
  if (scope === "public" || scope === "link") return "ok";
  if (caller === "none") return 401;
  return RANK[caller] >= RANK[scope as keyof typeof RANK] ? "ok" : 403;
}

const operations = () =>
  Object.entries(openApiDocument().paths as Record<string, Record<string, { "x-sluice-scope": string }>>).flatMap(
    ([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, scope: op["x-sluice-scope"] })),
  );

describe("auth matrix: every endpoint × no token, bad token, metrics, read, operate, worker, admin", () => {
  it("the OpenAPI document lists exactly the app's routes, each with its scope", () => {
    const routes = new Set(
      h.app.routes
        .filter(
          (r) =>
            r.method !== "ALL" &&
            (r.path.startsWith("/api/") || r.path.startsWith("/approve/") || r.path === "/metrics"),
        )
        .map((r) => `${r.method} ${r.path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}")}`),
    );
    const documented = new Set(operations().map((o) => `${o.method} ${o.path}`));
    expect([...documented].sort()).toEqual([...routes].sort());
    for (const o of operations())
      expect(["public", "link", "metrics", "read", "operate", "worker", "admin"], `${o.method} ${o.path}`).toContain(
        o.scope,
      );
  });

  for (const caller of CALLERS) {
    it(`as ${caller}`, async () => {
      const seen: string[] = [];
      for (const op of operations()) {
        const req = await requestFor(op.method, op.path);
        const token =
          caller === "none"
            ? undefined
            : caller === "bad"
              ? "sluice_0123456789abcdef_" + "x".repeat(43)
              : h.tokens[caller];
        const res = await h.call(op.method, req.path, {
          token,
          ...(req.form
            ? { body: "decision=approve", headers: { "content-type": "application/x-www-form-urlencoded" } }
            : req.body !== undefined
              ? { body: req.body }
              : {}),
        });
        await res.body?.cancel();
        const want = expectedFor(op.scope, caller);
        const label = `${caller} ${op.method} ${op.path} → ${res.status}`;
        seen.push(label);
        if (want === "ok") expect([401, 403], label).not.toContain(res.status);
        else expect(res.status, label).toBe(want);
      }
      expect(seen.length).toBe(operations().length);
    });
  }

  it("says why: missing token, bad token, low scope", async () => {
    const none = (await (await h.call("POST", "/api/runs", { body: { workflow: "hello" } })).json()) as any;
    expect(none.error).toMatchObject({ code: "AUTH_REQUIRED" });
    expect(none.error.message).toMatch(/sluice token create --name <you> --scope operate/);
    const bad = (await (await h.call("GET", "/api/runs", { token: "nope" })).json()) as any;
    expect(bad.error.code).toBe("AUTH_INVALID_TOKEN");
    const low = (await (
      await h.call("POST", "/api/runs", { token: h.tokens.read, body: { workflow: "hello" } })
    ).json()) as any;
    expect(low.error).toMatchObject({ code: "AUTH_SCOPE" });
    expect(low.error.message).toMatch(/token "reader" has scope "read" but this endpoint needs "operate"/);
    const malformed = await h.call("GET", "/api/runs", { headers: { authorization: "Basic abc" } });
    expect(malformed.status).toBe(401);
  });

  it("stack traces (server file paths) only for callers who may operate: a read token sees name, code and message", async () => {
    const failed = await h.start("fails", {}, { until: (r) => r.status === "failed" });
    const path = `/api/runs/${encodeURIComponent(failed.id)}`;
    const read = await (await h.call("GET", path, { token: h.tokens.read })).text();
    const operate = (await (await h.call("GET", path, { token: h.tokens.operate })).json()) as any;
    expect(operate.run.error.stack).toMatch(/boom[\s\S]*at /);
    const seen = JSON.parse(read);
    expect(seen.run.error).toMatchObject({ message: "boom", name: "Error" });
    expect(read).not.toContain('"stack"');
    expect(read).not.toContain(h.root);
    const lists = await Promise.all(
      ["/api/runs?workflow=fails", "/api/workflows", "/api/workflows/fails"].map(async (p) =>
        (await h.call("GET", p, { token: h.tokens.read })).text(),
      ),
    );
    for (const body of lists) expect(body).not.toContain('"stack"');
    expect(await (await h.call("GET", "/api/runs?workflow=fails", { token: h.tokens.admin })).text()).toContain(
      '"stack"',
    );
  });

  it("tokens: created through the API (admin), listed without secrets, revoked at once", async () => {
    const created = (await (
      await h.call("POST", "/api/tokens", { token: h.tokens.admin, body: { name: "ci-bot", scope: "operate" } })
    ).json()) as any;
    expect(created.token).toMatch(/^sluice_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(created.info).toMatchObject({ name: "ci-bot", scope: "operate" });
    const me = (await (await h.call("GET", "/api/me", { token: created.token })).json()) as any;
    expect(me).toEqual({ name: "ci-bot", scope: "operate", auth: "tokens" });
    const list = await (await h.call("GET", "/api/tokens", { token: h.tokens.admin })).text();
    expect(list).toContain("ci-bot");
    expect(list).not.toContain(created.token.slice(-43));
    expect(list).not.toContain("hash");
    expect((await h.call("DELETE", `/api/tokens/${created.info.id}`, { token: h.tokens.admin })).status).toBe(200);
    expect((await h.call("GET", "/api/me", { token: created.token })).status).toBe(401);
    expect(
      (await h.call("POST", "/api/tokens", { token: h.tokens.admin, body: { name: "x y", scope: "read" } })).status,
    ).toBe(400);
    expect(
      (await h.call("POST", "/api/tokens", { token: h.tokens.admin, body: { name: "x", scope: "root" } })).status,
    ).toBe(400);
  });
});

describe("request safety", () => {
  it("limits bodies to 1 MiB (declared or streamed)", async () => {
    const big = JSON.stringify({ workflow: "hello", payload: { blob: "x".repeat(1024 * 1024) } });
    const res = await h.call("POST", "/api/runs", { token: h.tokens.operate, body: big });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.code).toBe("BODY_TOO_LARGE");
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode("x".repeat(64 * 1024)));
        c.close();
      },
    });
    const streamed = await h.app.request("/api/runs", {
      method: "POST",
      body: stream,
      headers: { authorization: `Bearer ${h.tokens.operate}`, "content-type": "application/json" },
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it("refuses deep JSON, prototype-pollution keys and non-JSON bodies", async () => {
    const deep = "[".repeat(65) + "]".repeat(65);
    const cases: Array<[string, number, string]> = [
      [`{"workflow":"hello","payload":${deep}}`, 400, "JSON_TOO_DEEP"],
      ['{"workflow":"hello","payload":{"__proto__":{"admin":true}}}', 400, "FORBIDDEN_KEY"],
      ['{"workflow":"hello","payload":{"a":[{"constructor":{"prototype":{}}}]}}', 400, "FORBIDDEN_KEY"],
      ['{"workflow": "hello",', 400, "INVALID_JSON"],
    ];
    for (const [body, status, code] of cases) {
      const res = await h.call("POST", "/api/runs", { token: h.tokens.operate, body });
      expect(res.status, body.slice(0, 60)).toBe(status);
      expect(((await res.json()) as any).error.code).toBe(code);
    }
    const plain = await h.call("POST", "/api/runs", {
      token: h.tokens.operate,
      body: '{"workflow":"hello"}',
      headers: { "content-type": "text/plain" },
    });
    expect(plain.status).toBe(415);
    expect(({} as any).admin).toBeUndefined();
  });

  it("refuses cross-site state changes (Origin of another site)", async () => {
    const evil = await h.call("POST", "/api/signals", {
      token: h.tokens.operate,
      body: { event: "x" },
      headers: { origin: "https://evil.example" },
    });
    expect(evil.status).toBe(403);
    expect(((await evil.json()) as any).error.code).toBe("CROSS_ORIGIN");
    const same = await h.call("POST", "/api/signals", {
      token: h.tokens.operate,
      body: { event: "x" },
      headers: { origin: "http://localhost" },
    });
    expect(same.status).toBe(200);
    const reads = await h.call("GET", "/api/runs", {
      token: h.tokens.read,
      headers: { origin: "https://evil.example" },
    });
    expect(reads.status).toBe(200);
    expect(reads.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("sets security headers and no-store on API answers", async () => {
    const res = await h.call("GET", "/api/runs", { token: h.tokens.read });
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const unknown = await h.call("GET", "/api/nope", { token: h.tokens.read });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe("NOT_FOUND");
  });
});

describe("auth off (sluice dev on loopback)", () => {
  let off: HttpHarness;
  beforeAll(async () => {
    off = await startHarness({ mode: "off", user: "dev-user" });
  });
  afterAll(async () => off?.close());

  it("needs no token, acts as the local user, and still checks tokens that are sent", async () => {
    expect((await (await off.call("GET", "/api/me")).json()) as any).toEqual({
      name: "dev-user",
      scope: "admin",
      auth: "off",
    });
    const r = (await (await off.call("POST", "/api/runs", { body: { workflow: "hello" } })).json()) as any;
    expect(r.run.createdBy).toBe("dev-user");
    expect(((await (await off.call("GET", "/api/me", { token: off.tokens.read })).json()) as any).name).toBe("reader");
    expect((await off.call("GET", "/api/me", { token: "nope" })).status).toBe(401);
  });

  it("answers only loopback host names and loopback peers (DNS rebinding)", async () => {
    for (const host of ["localhost:7777", "127.0.0.1:7777", "[::1]:7777"]) {
      expect((await off.call("GET", "/api/me", { headers: { host } })).status, host).toBe(200);
    }
    const rebound = await off.call("GET", "/api/me", { headers: { host: "attacker.example:7777" } });
    expect(rebound.status).toBe(403);
    expect(((await rebound.json()) as any).error.code).toBe("HOST_NOT_ALLOWED");
    const remote = await off.app.request("/api/me", {}, {
      incoming: { socket: { remoteAddress: "10.1.2.3" } },
    } as never);
    expect(remote.status).toBe(403);
    const loop = await off.app.request("/api/me", {}, {
      incoming: { socket: { remoteAddress: "::ffff:127.0.0.1" } },
    } as never);
    expect(loop.status).toBe(200);
  });
});
