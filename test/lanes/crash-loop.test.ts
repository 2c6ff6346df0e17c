/**
 * A lane whose worker crashes before its first claim stops respawning, the next enqueue
 * of its group fails with the worker's error (CLI and HTTP API), other groups go on, and
 * once the worker is fixed the lane's next successful claim restores normal operation.
 * Real processes: `sluice server`, its `sluice worker` lanes, the CLI.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";
import { cli, LANE_WORKFLOWS, startedWorkers } from "./fixtures.js";

/** Loads fine in the server; in its own lane's worker it throws while a BROKEN file exists. */
const FRAGILE = `import { existsSync } from "node:fs";
import { defineWorkflow } from "sluice";
if (process.env.SLUICE_LANE === "fragile" && existsSync("BROKEN")) {
  throw new Error("fragile: cannot reach the payment gateway (BROKEN is set)");
}
export default defineWorkflow("fragile", { worker: "fragile", handler: async (_p, ctx) => ctx.run("ok", () => process.pid) });
`;

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

describe("a lane that crashes at startup", () => {
  it("stops respawning, refuses enqueues of its group with the worker's error, and recovers on the next successful claim", async () => {
    const root = makeProject({ ...LANE_WORKFLOWS, "workflows/fragile.ts": FRAGILE, BROKEN: "" });
    const server = spawnSluice(["server", "--port", "0", "--lane-idle", "1s", "--lane-retry", "4s"], root);
    await server.waitFor(/server \d+ ready/, 60_000);
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    stores.push(store);
    const baseUrl = server.output().match(/API and UI: (http:\/\/\S+)/)![1]!;

    const first = await cli(["enqueue", "fragile"], root);
    expect(first.code, first.out).toBe(0);
    const firstId = first.out.trim();
    await server.waitFor(
      /lane fragile: worker pid \d+ exited with code 1 before its first claim; not respawning/,
      60_000,
    );
    expect(server.output()).toMatch(/\[lane fragile\] .*fragile: cannot reach the payment gateway/);
    expect(startedWorkers(server.output(), "fragile")).toHaveLength(1);

    // The CLI refuses the group with the lane's name and the worker's stderr.
    const refused = await cli(["enqueue", "fragile"], root);
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/worker lane "fragile" is down: its worker exited with code 1 before claiming any run/);
    expect(refused.out).toMatch(/Worker stderr:\n(.|\n)*fragile: cannot reach the payment gateway/);
    expect(await store.countRuns({ workflow: "fragile" })).toBe(1);

    // So does the HTTP API (503, code LANE_CRASHED).
    const token = await cli(["token", "create", "--name", "tester", "--scope", "operate"], root);
    expect(token.code, token.out).toBe(0);
    const bearer = token.out
      .split("\n")
      .find((l) => l.startsWith("sluice_"))!
      .trim();
    const res = await fetch(`${baseUrl}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
      body: JSON.stringify({ workflow: "fragile", payload: {} }),
    });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("LANE_CRASHED");
    expect(body.error.message).toMatch(/worker lane "fragile" is down(.|\n)*cannot reach the payment gateway/);

    // Other groups are not affected.
    const hello = await cli(["enqueue", "hello", '{"n":1}'], root);
    expect(hello.code, hello.out).toBe(0);
    await eventually(async () => (await store.getRun(hello.out.trim()))?.status === "succeeded", 60_000);

    // No respawn storm: while broken, only the slow retries start a worker (4 s, then 8 s…).
    await server.waitFor(/lane fragile: trying a fresh worker after its crash/, 30_000);
    await server.waitFor(
      /lane fragile: worker pid \d+ exited with code 1 before its first claim[^\n]*\n(.|\n)*lane fragile: worker pid \d+ exited with code 1 before its first claim/,
      30_000,
    );
    expect(startedWorkers(server.output(), "fragile").length).toBeLessThanOrEqual(3);

    // Fixed: the next try claims the waiting run, which clears the crash; enqueues work again.
    rmSync(join(root, "BROKEN"));
    expect(existsSync(join(root, "BROKEN"))).toBe(false);
    await eventually(async () => (await store.getRun(firstId))?.status === "succeeded", 60_000);
    await eventually(async () => (await store.kvGet("lane:crash:fragile")) === null, 10_000);
    const again = await cli(["enqueue", "fragile"], root);
    expect(again.code, again.out).toBe(0);
    await eventually(async () => (await store.getRun(again.out.trim()))?.status === "succeeded", 60_000);
  }, 180_000);
});
