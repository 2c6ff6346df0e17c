/**
 * Webhook rows of `sluice.json`: each row is a URL (`POST /api/triggers/<id>/webhook`) that
 * starts a run of any runnable — a script, a `defineWorkflow` workflow, a workflow as code — with
 * the request body mapped as any trigger message. Against a real `sluice dev --auth`: a token of
 * scope `operate` is needed (401 without, as the pipeline webhooks), a paused row refuses with
 * 409 (as a paused upload row), an unknown row is 404, an `Idempotency-Key` makes a retried
 * call find its run, the calls show in `sluice triggers --json`, and a row added to
 * `sluice.json` while `sluice dev` or a folder-mode `sluice server` runs is served without a restart.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";
import { cliJson, runsOf } from "./project.js";

const SCRIPT = `export async function main(order: string, amount: number) {
  return { order, amount };
}
`;
const FLOW = `import { step, workflow } from "windmill-client";

export const main = workflow(async (order: string) => {
  const upper = await step("upper", () => order.toUpperCase());
  return { upper };
});
`;
const WORKFLOW = `import { defineWorkflow } from "tako.sh";
export default defineWorkflow<{ n: number; event: string | null }>("orders", {
  handler: async (p) => ({ n: p.n, event: p.event }),
});
`;

describe("webhook rows of sluice.json", () => {
  it("a URL per row runs a script, a workflow and a workflow as code, authenticated, pausable, listed, followed live", async () => {
    const rows = [
      { name: "to-script", kind: "webhook", target: "f/ops/receive" },
      { name: "to-flow", kind: "webhook", target: "f/ops/flow", format: "json", args: { order: "$.body.id" } },
      {
        name: "to-workflow",
        kind: "webhook",
        target: "orders",
        args: { n: "$.body.n", event: "$.headers.x-event" },
        maxBytes: 200,
      },
    ];
    const root = makeProject(
      {
        "sluice.json": JSON.stringify({ triggers: rows }),
        "f/ops/receive.ts": SCRIPT,
        "f/ops/flow.ts": FLOW,
        "workflows/orders.ts": WORKFLOW,
      },
      "sluice-webhook-rows-",
    );
    const token = spawnSluice(["token", "create", "--scope", "operate", "--name", "hooks"], root);
    expect(await token.exited).toBe(0);
    const bearer = token.stdout().trim();
    const env = { SLUICE_TOKEN: bearer };
    const dev = spawnSluice(["dev", ".", "--port", "0", "--auth"], root, { SLUICE_TRIGGER_TICK_MS: "200" });
    await dev.waitFor(/UI: (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
    const url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
    const call = (id: string, body: unknown, headers: Record<string, string> = {}, auth = `Bearer ${bearer}`) =>
      fetch(`${url}/api/triggers/${id}/webhook`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: auth, ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    const done = (runnable: string, id: string) =>
      eventually(async () => {
        const r = (await runsOf(root, runnable, env)).find((x) => x.id === id);
        return r && r.status !== "pending" && r.status !== "running" && r.status !== "waiting" ? r : null;
      }, 30_000);

    // Authentication as the pipeline webhooks: a token of scope operate.
    expect((await call("to-script", { order: "a", amount: 1 }, {}, "Bearer nope")).status).toBe(401);

    // A script: the JSON object body is the payload.
    const s = await call("to-script", { order: "o-1", amount: 12 });
    expect(s.status, await s.clone().text()).toBe(202);
    const sRun = ((await s.json()) as { run: string; deduplicated: boolean }).run;
    expect(await done("f/ops/receive", sRun)).toMatchObject({
      status: "succeeded",
      payload: { order: "o-1", amount: 12 },
      result: { order: "o-1", amount: 12 },
    });

    // A workflow as code, its parameter mapped from the body.
    const f = await call("to-flow", { id: "o-2", noise: true });
    expect(f.status).toBe(202);
    const fRun = ((await f.json()) as { run: string }).run;
    expect(await done("f/ops/flow", fRun)).toMatchObject({ status: "succeeded", result: { upper: "O-2" } });

    // A workflow, mapped from body and a header; a retried call with its Idempotency-Key finds its run.
    const w = await call("to-workflow", { n: 7 }, { "x-event": "created", "idempotency-key": "evt-7" });
    expect(w.status).toBe(202);
    const wMade = (await w.json()) as { run: string; deduplicated: boolean };
    expect(wMade.deduplicated).toBe(false);
    const again = await call("to-workflow", { n: 7 }, { "x-event": "created", "idempotency-key": "evt-7" });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ run: wMade.run, deduplicated: true });
    const wRun = await done("orders", wMade.run);
    expect(wRun).toMatchObject({ status: "succeeded", payload: { n: 7, event: "created" } });
    expect(JSON.stringify(wRun.payload)).not.toContain(bearer);
    // Without a key every call is its own run.
    const other = (await (await call("to-script", { order: "o-1", amount: 12 })).json()) as { run: string };
    expect(other.run).not.toBe(sRun);

    // Too large, not a row, not a webhook row.
    expect((await call("to-workflow", { n: 1, pad: "x".repeat(300) })).status).toBe(413);
    const unknown = await call("nope", {});
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.message).toMatch(
      /no webhook trigger "nope"; webhook triggers: to-script, to-flow, to-workflow/,
    );

    // A body that does not map is refused, its reason the row's last error.
    const notJson = await call("to-flow", "not json");
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as any).error.message).toMatch(/the message is not JSON/);

    // Listed with their state and last message; each call counts.
    const listed = await cliJson(root, ["triggers", "--json"], env);
    const hook = listed.find((t: any) => t.id === "to-workflow");
    expect(hook).toMatchObject({
      kind: "webhook",
      target: { type: "runnable", name: "orders" },
      source: "POST /api/triggers/to-workflow/webhook",
      configuredIn: "sluice.json",
      status: "running",
      paused: false,
      messages: 2,
      lastRunId: wMade.run,
    });
    expect(JSON.parse(hook.lastMessage)).toMatchObject({
      kind: "webhook",
      body: { n: 7 },
      headers: { "x-event": "created" },
    });
    expect(hook.lastMessage).not.toContain(bearer);
    expect(listed.find((t: any) => t.id === "to-script")).toMatchObject({ messages: 2, lastRunId: other.run });
    expect(listed.find((t: any) => t.id === "to-flow")).toMatchObject({
      messages: 1,
      lastRunId: fRun,
      lastError: expect.stringMatching(/the message is not JSON/),
    });

    // Paused: refused with 409 (as a paused upload row), then served again once resumed.
    const paused = spawnSluice(["triggers", "pause", "to-script"], root, env);
    expect(await paused.exited).toBe(0);
    const refused = await call("to-script", { order: "p", amount: 0 });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as any).error.message).toMatch(/trigger to-script is paused: resume it/);
    expect((await cliJson(root, ["triggers", "--json"], env)).find((t: any) => t.id === "to-script")).toMatchObject({
      status: "paused",
      paused: true,
    });
    const resumed = spawnSluice(["triggers", "resume", "to-script"], root, env);
    expect(await resumed.exited).toBe(0);
    expect((await call("to-script", { order: "r", amount: 1 })).status).toBe(202);

    // A row added to sluice.json while sluice dev runs is served without a restart.
    const config = JSON.parse(readFileSync(join(root, "sluice.json"), "utf8"));
    config.triggers.push({ name: "late", kind: "webhook", target: "f/ops/receive" });
    writeFileSync(join(root, "sluice.json"), JSON.stringify(config));
    await dev.waitFor(/reloaded sluice\.json: triggers .*late/, 20_000);
    const late = await call("late", { order: "late", amount: 3 });
    expect(late.status).toBe(202);
    const lateRun = ((await late.json()) as { run: string }).run;
    expect(await done("f/ops/receive", lateRun)).toMatchObject({ status: "succeeded", result: { order: "late" } });

    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 90_000);

  it("a folder-mode sluice server serves a webhook row added to sluice.json while it runs", async () => {
    const root = makeProject(
      { "sluice.json": JSON.stringify({ triggers: [] }), "workflows/orders.ts": WORKFLOW },
      "sluice-webhook-server-",
    );
    const token = spawnSluice(["token", "create", "--scope", "operate", "--name", "hooks"], root);
    expect(await token.exited).toBe(0);
    const bearer = token.stdout().trim();
    const server = spawnSluice(["server", "--port", "0", "--workers", "none"], root, { SLUICE_TRIGGER_TICK_MS: "200" });
    await server.waitFor(/server \d+ ready/, 30_000);
    const url = /API and UI: (http:\/\/\S+)/.exec(server.output())![1]!;
    const post = () =>
      fetch(`${url}/api/triggers/hook/webhook`, {
        method: "POST",
        headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
        body: JSON.stringify({ n: 3 }),
      });
    expect((await post()).status).toBe(404);
    writeFileSync(
      join(root, "sluice.json"),
      JSON.stringify({ triggers: [{ name: "hook", kind: "webhook", target: "orders", args: { n: "$.body.n" } }] }),
    );
    await server.waitFor(/reloaded sluice\.json: triggers hook/, 15_000);
    const res = await post();
    expect(res.status, await res.clone().text()).toBe(202);
    const { run } = (await res.json()) as { run: string };
    // No workers here (--workers none): the run is stored with its mapped payload, waiting for one.
    const runs = await runsOf(root, "orders", { SLUICE_TOKEN: bearer });
    expect(runs).toEqual([expect.objectContaining({ id: run, payload: { n: 3 } })]);
    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 60_000);
});
