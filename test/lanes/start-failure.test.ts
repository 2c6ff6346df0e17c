/**
 * A lane whose worker cannot even be started (here its build file cannot be written: the
 * lanes folder is a file) is a crash like any other: the lane says why in `GET /api/lanes`,
 * `/api/ready` is not ready with the reason, enqueues of its group are refused, and it tries
 * again after `--lane-retry` while the run waits; once the cause is gone the run finishes.
 * (It stayed `starting` for good, with its run pending and the server ready.) Real processes.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";
import { cli, LANE_WORKFLOWS } from "./fixtures.js";

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

describe("a lane whose worker cannot be started", () => {
  it("is crashed with the reason (lanes, readiness, enqueue) and retried after --lane-retry until it starts", async () => {
    const root = makeProject({ "workflows/hello.ts": LANE_WORKFLOWS["workflows/hello.ts"]! });
    const server = spawnSluice(["server", "--port", "0", "--lane-idle", "1s", "--lane-retry", "1s"], root);
    await server.waitFor(/server \d+ ready/, 60_000);
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    stores.push(store);
    const baseUrl = server.output().match(/API and UI: (http:\/\/\S+)/)![1]!;
    const token = await cli(["token", "create", "--name", "tester", "--scope", "read"], root);
    expect(token.code, token.out).toBe(0);
    const bearer = token.out
      .split("\n")
      .find((l) => l.startsWith("sluice_"))!
      .trim();
    const lanes = async () =>
      (
        (await (await fetch(`${baseUrl}/api/lanes`, { headers: { authorization: `Bearer ${bearer}` } })).json()) as {
          lanes: Array<{ group: string; mode: string; pid: number | null; error: string | null }>;
        }
      ).lanes;
    const ready = async () => {
      const res = await fetch(`${baseUrl}/api/ready`);
      return { status: res.status, body: (await res.json()) as { checks: { lanes: { ok: boolean; detail: string } } } };
    };

    // The lane's build file goes under .sluice/lanes/: a file there makes every start fail.
    const lanesPath = join(root, ".sluice", "lanes");
    rmSync(lanesPath, { recursive: true, force: true });
    writeFileSync(lanesPath, "not a folder");
    const first = await cli(["enqueue", "hello", '{"n":1}'], root);
    expect(first.code, first.out).toBe(0);
    const id = first.out.trim();
    await server.waitFor(/lane default: could not start a worker: .*; not respawning/, 30_000);

    const [lane] = await lanes();
    expect(lane).toMatchObject({ group: "default", mode: "crashed", pid: null });
    expect(lane!.error).toMatch(/^its worker could not be started: E(EXIST|NOTDIR)/);
    const notReady = await ready();
    expect(notReady.status).toBe(503);
    expect(notReady.body.checks.lanes.ok).toBe(false);
    expect(notReady.body.checks.lanes.detail).toMatch(/crashed worker group\(s\): default \(its worker could not be/);
    const refused = await cli(["enqueue", "hello", '{"n":2}'], root);
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/worker lane "default" is down: its worker could not be started .*E(EXIST|NOTDIR)/);

    // While the run waits the lane tries again (1 s, then 2 s…), and fails again while the cause stays.
    await server.waitFor(/lane default: trying a fresh worker after its crash \(attempt 2\)/, 15_000);
    expect((await store.getRun(id))?.status).toBe("pending");

    // The cause gone, the next try starts a worker that runs the waiting run; the lane and the server are healthy.
    rmSync(lanesPath);
    const run = await eventually(async () => {
      const r = await store.getRun(id);
      return r?.status === "succeeded" ? r : null;
    }, 30_000);
    expect(JSON.parse(run.result!)).toMatchObject({ n: 1, lane: "default" });
    await eventually(async () => (await ready()).status === 200, 10_000);
    expect((await lanes())[0]!.error).toBeNull();
    const again = await cli(["enqueue", "hello", '{"n":3}'], root);
    expect(again.code, again.out).toBe(0);
  }, 120_000);
});
