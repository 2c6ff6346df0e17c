/**
 * Approval links made by a separate `sluice worker` point at the server: `sluice server`
 * / `sluice dev` record their public URL in the database and the worker reads it; a
 * configured URL (SLUICE_PUBLIC_URL, --public-url, sluice.json) wins. Child processes.
 */
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";

const FILES = {
  "f/gate.ts": `import { step, waitForApproval, workflow, getResumeUrls } from "windmill-client";
export const main = workflow(async () => {
  const urls = await step("urls", () => getResumeUrls());
  const approval = await waitForApproval({ timeout: 600 });
  return { approval, urls };
});`,
};

async function sluice(root: string, args: string[], env: Record<string, string> = {}) {
  const p = spawnSluice(args, root, env);
  const code = await p.exited;
  return { code, out: p.output() };
}

/** The `urls` step of a run, once a worker has written it. */
async function resumeUrls(root: string, id: string): Promise<{ approvalPage: string; resume: string; cancel: string }> {
  return eventually(
    async () => {
      const shown = await sluice(root, ["show", id, "--json"]);
      if (shown.code !== 0) return null;
      return JSON.parse(shown.out).steps.find((s: { key: string }) => s.key === "urls")?.value ?? null;
    },
    30_000,
    200,
  );
}

describe("approval links from a separate worker", () => {
  it("point at the running `sluice server` (its bound port), learned from the database", async () => {
    const root = makeProject(FILES, "sluice-url-");
    const server = spawnSluice(["server", "--port", "0"], root);
    await server.waitFor(/API and UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
    const url = /API and UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())![1]!;
    expect(url).not.toBe("http://127.0.0.1:7777");
    const worker = spawnSluice(["worker"], root);
    await worker.waitFor(/ready/, 30_000);
    expect((await sluice(root, ["enqueue", "f/gate", "--id", "gate-1"])).code).toBe(0);
    const urls = await resumeUrls(root, "gate-1");
    expect(urls.resume.startsWith(`${url}/api/runs/gate-1/approvals/`)).toBe(true);
    expect(urls.approvalPage.startsWith(`${url}/approve/gate-1/`)).toBe(true);
    // The link works against that server: it decides the approval and the worker finishes the run.
    expect((await fetch(urls.resume, { method: "POST" })).status).toBe(200);
    await worker.waitFor(/✓ f\/gate gate-1 succeeded/, 30_000);
    worker.proc.kill("SIGTERM");
    server.proc.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect(await server.exited).toBe(0);
  }, 120_000);

  it("use `sluice dev --public-url` recorded in the database, and a worker's own SLUICE_PUBLIC_URL wins over it", async () => {
    const root = makeProject(FILES, "sluice-url-dev-");
    const dev = spawnSluice(
      ["dev", ".", "--port", "0", "--no-watch", "--public-url", "https://sluice.example.com/ops/"],
      root,
    );
    await dev.waitFor(/UI: https:\/\/sluice\.example\.com\/ops .*, listening on http:\/\/127\.0\.0\.1:\d+\)/, 30_000);
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);

    expect((await sluice(root, ["enqueue", "f/gate", "--id", "gate-2"])).code).toBe(0);
    expect((await sluice(root, ["worker", "--exit-when-idle", "--idle", "300ms"])).code).toBe(0);
    expect(
      (await resumeUrls(root, "gate-2")).resume.startsWith("https://sluice.example.com/ops/api/runs/gate-2/"),
    ).toBe(true);

    expect((await sluice(root, ["enqueue", "f/gate", "--id", "gate-3"])).code).toBe(0);
    expect(
      (
        await sluice(root, ["worker", "--exit-when-idle", "--idle", "300ms"], {
          SLUICE_PUBLIC_URL: "http://10.1.2.3:9000",
        })
      ).code,
    ).toBe(0);
    expect((await resumeUrls(root, "gate-3")).resume.startsWith("http://10.1.2.3:9000/api/runs/gate-3/")).toBe(true);

    const bad = await sluice(root, ["worker", "--exit-when-idle"], { SLUICE_PUBLIC_URL: "sluice.example.com" });
    expect(bad.code).toBe(1);
    expect(bad.out.trim()).toBe(
      'sluice: SLUICE_PUBLIC_URL "sluice.example.com" is not a public URL: use http(s)://host[:port][/path], e.g. https://sluice.example.com',
    );
  }, 120_000);
});
