/**
 * Worker processes' metrics, with real processes: `sluice worker --metrics-port` serves its
 * own `/metrics`, and the lane workers of `sluice server` (scale to zero) send theirs to
 * the server, whose `/metrics` keeps counting after they exit. Figures are parsed with
 * the real Prometheus parser and checked against the runs in the store. Also: lane
 * workers honour the server's `--log-format json` (one JSON object per line, with `lane`).
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ApiTokens } from "../../src/http/auth/tokens.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";
import { cli, LANE_WORKFLOWS } from "../lanes/fixtures.js";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { parsePrometheus, prometheusParserAvailable, promValue } from "../helpers/prometheus.js";
import { eventually } from "../helpers/tmp.js";

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

function storeOf(root: string): Store {
  const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
  stores.push(store);
  return store;
}

async function scrape(url: string, token?: string) {
  const res = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return { status: res.status, text: await res.text() };
}

const helloCount = (text: string, family: string, sample: string, labels: Record<string, string>) =>
  promValue(parsePrometheus(text), family, sample, labels);

describe.skipIf(!prometheusParserAvailable())("worker process metrics", () => {
  it("sluice worker --metrics-port serves its own claims, steps and outcomes", async () => {
    const root = makeProject(LANE_WORKFLOWS);
    const worker = spawnSluice(["worker", "--metrics-port", "0"], root);
    await worker.waitFor(/metrics: (http:\/\/\S+)/, 60_000);
    const url = /metrics: (http:\/\/\S+)/.exec(worker.output())![1]!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    await worker.waitFor(/worker \S+ ready/, 60_000);
    for (let n = 1; n <= 3; n++) {
      const r = await cli(["enqueue", "hello", JSON.stringify({ n }), "--wait"], root);
      expect(r.code, r.out).toBe(0);
    }
    const store = storeOf(root);
    const done = await store.countRuns({ workflow: "hello", status: ["succeeded"] });
    expect(done).toBe(3);
    const { status, text } = await scrape(url);
    expect(status).toBe(200);
    const m = parsePrometheus(text);
    expect(
      promValue(m, "sluice_run_attempt_duration_seconds", "sluice_run_attempt_duration_seconds_count", {
        workflow: "hello",
        result: "completed",
      }),
    ).toBe(done);
    expect(
      promValue(m, "sluice_run_claim_to_start_seconds", "sluice_run_claim_to_start_seconds_count", {
        workflow: "hello",
      }),
    ).toBe(done);
    expect(
      promValue(m, "sluice_run_end_to_end_seconds", "sluice_run_end_to_end_seconds_count", {
        workflow: "hello",
        status: "succeeded",
      }),
    ).toBe(done);
    // Only this process's figures: the database's (runs by status) come from the server.
    expect(m.has("sluice_runs")).toBe(false);
    expect((await scrape(url.replace("/metrics", "/other"))).status).toBe(404);
    worker.proc.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  }, 120_000);

  it("refuses a --metrics-port that is not a port, in one line, exit non-zero", async () => {
    const root = makeProject(LANE_WORKFLOWS);
    const r = await cli(["worker", "--metrics-port", "70000"], root);
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/--metrics-port 70000 is not a port/);
  }, 60_000);

  it("sluice server's /metrics includes its lane workers' figures, also after they exit; lanes log JSON", async () => {
    const root = makeProject(LANE_WORKFLOWS);
    const server = spawnSluice(
      ["server", "--port", "0", "--lane-idle", "1s", "--scheduler-tick", "200ms", "--log-format", "json"],
      root,
    );
    await server.waitFor(/server \d+ ready/, 60_000);
    const base = /API and UI: (http:\/\/[^\s"]+)/.exec(server.output())![1]!;
    const store = storeOf(root);
    const tokens = new ApiTokens(store);
    const metricsToken = (await tokens.create({ name: "prometheus", scope: "metrics" })).token;
    const operate = (await tokens.create({ name: "olivia", scope: "operate" })).token;
    const ids: string[] = [];
    for (let n = 1; n <= 3; n++) {
      const res = await fetch(`${base}/api/runs`, {
        method: "POST",
        headers: { authorization: `Bearer ${operate}`, "content-type": "application/json" },
        body: JSON.stringify({ workflow: "hello", payload: { n } }),
      });
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as { run: { id: string } }).run.id);
    }
    await eventually(async () => (await store.countRuns({ workflow: "hello", status: ["succeeded"] })) === 3, 60_000);
    // The lane worker exits after its idle second; its last figures stay in the server's /metrics.
    await server.waitFor(/exited \(idle\)/, 30_000);
    const attempts = async () =>
      helloCount(
        (await scrape(`${base}/metrics`, metricsToken)).text,
        "sluice_run_attempt_duration_seconds",
        "sluice_run_attempt_duration_seconds_count",
        {
          workflow: "hello",
          result: "completed",
        },
      );
    await eventually(async () => (await attempts()) === 3, 10_000).catch(async () => {
      throw new Error(`lane metrics not in /metrics: attempts ${await attempts()}\n${server.output()}`);
    });
    const { text } = await scrape(`${base}/metrics`, metricsToken);
    expect(
      helloCount(text, "sluice_run_end_to_end_seconds", "sluice_run_end_to_end_seconds_count", {
        workflow: "hello",
        status: "succeeded",
      }),
    ).toBe(3);
    expect(
      helloCount(text, "sluice_run_claim_to_start_seconds", "sluice_run_claim_to_start_seconds_count", {
        workflow: "hello",
      }),
    ).toBe(3);
    expect(helloCount(text, "sluice_runs", "sluice_runs", { workflow: "hello", status: "succeeded" })).toBe(3);
    // --log-format json reaches the lane workers: their lines are JSON objects carrying the lane.
    const lines = server.stdout().split("\n").filter(Boolean);
    const laneLines = lines.filter((l) => l.includes('"lane":"default"'));
    expect(laneLines.length).toBeGreaterThan(0);
    for (const l of laneLines) expect(JSON.parse(l)).toMatchObject({ lane: "default", ts: expect.any(String) });
    expect(laneLines.some((l) => (JSON.parse(l) as { runId?: string }).runId === ids[0])).toBe(true);
    expect(lines.filter((l) => !l.startsWith("{"))).toEqual([]);
    server.proc.kill("SIGTERM");
    await server.exited;
  }, 120_000);
});
