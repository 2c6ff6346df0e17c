import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.js";
import { bufferIO } from "../../src/cli/io.js";
import { eventually } from "../helpers/tmp.js";
import { makeProject } from "../helpers/project.js";
import { FILES } from "./harness.js";

describe("sluice token", () => {
  it("creates (printing the token once), lists and revokes tokens", async () => {
    const root = makeProject({});
    const io = bufferIO(root);
    expect(await run(["token", "create", "--scope", "operate", "--name", "alice"], io)).toBe(0);
    const token = io.out.join("").trim();
    expect(token).toMatch(/^sluice_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(io.err.join("")).toMatch(/for alice \(scope operate\); it is shown only now/);
    const list = bufferIO(root);
    expect(await run(["token", "list", "--json"], list)).toBe(0);
    const tokens = JSON.parse(list.out.join(""));
    expect(tokens).toEqual([
      { id: expect.any(String), name: "alice", scope: "operate", createdAt: expect.any(String) },
    ]);
    expect(list.out.join("")).not.toContain(token.slice(-43));
    const revoke = bufferIO(root);
    expect(await run(["token", "revoke", tokens[0].id], revoke)).toBe(0);
    expect(revoke.out.join("")).toBe(`revoked ${tokens[0].id}\n`);
    const again = bufferIO(root);
    expect(await run(["token", "revoke", tokens[0].id], again)).toBe(1);
    expect(again.err.join("")).toMatch(/no token with id/);
    const bad = bufferIO(root);
    expect(await run(["token", "create", "--scope", "root", "--name", "x"], bad)).toBe(1);
    expect(bad.err.join("")).toMatch(/unknown scope "root": use metrics, read, operate, worker or admin/);
  });
});

describe("sluice dev serves the API and the UI", () => {
  it("prints the UI's URL, answers without a token on loopback, and stops cleanly", async () => {
    const root = makeProject(FILES);
    const controller = new AbortController();
    const io = bufferIO(root, controller.signal);
    const dev = run(["dev", ".", "--port", "0", "--no-watch"], io);
    const url = await eventually(() => /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(io.out.join(""))?.[1], 20_000);
    try {
      expect(io.out.join("")).toMatch(/no login on loopback/);
      const health = await fetch(`${url}/api/health`);
      expect(await health.json()).toEqual({ ok: true, store: "sqlite" });
      const created = (await (
        await fetch(`${url}/api/runs`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ workflow: "hello", payload: { name: "dev" } }),
        })
      ).json()) as any;
      expect(created.run.createdBy).toBeTruthy();
      await eventually(
        async () =>
          ((await (await fetch(`${url}/api/runs/${created.run.id}`)).json()) as any).run.status === "succeeded",
        10_000,
      );
      const page = await fetch(`${url}/runs/${created.run.id}`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/text\/html/);
      // Resume links point at this server.
      const gate = (await (
        await fetch(`${url}/api/runs`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ workflow: "f/open_gate" }),
        })
      ).json()) as any;
      const urls = await eventually(async () => {
        const d = (await (await fetch(`${url}/api/runs/${gate.run.id}`)).json()) as any;
        return d.run.status === "waiting" ? d.steps.find((s: any) => s.key === "urls").value : null;
      }, 10_000);
      expect(urls.resume.startsWith(`${url}/api/runs/`)).toBe(true);
      const curl = await fetch(urls.resume, { method: "POST" });
      expect(curl.status).toBe(200);
    } finally {
      controller.abort();
    }
    expect(await dev).toBe(0);
    expect(io.out.join("")).toMatch(/stopped\n$/);
    await expect(fetch(`${url}/api/health`)).rejects.toThrow();
  });

  it("with --auth (or a non-loopback host) needs a token", async () => {
    const root = makeProject(FILES);
    const controller = new AbortController();
    const io = bufferIO(root, controller.signal);
    const dev = run(["dev", ".", "--port", "0", "--no-watch", "--auth"], io);
    const url = await eventually(() => /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(io.out.join(""))?.[1], 20_000);
    try {
      expect((await fetch(`${url}/api/runs`)).status).toBe(401);
    } finally {
      controller.abort();
    }
    expect(await dev).toBe(0);
  });
});
