/**
 * `GET /metrics`: scraped after a known workload, parsed with a real Prometheus text
 * parser (the official Python client's, see `test/helpers/prometheus.ts`), and the
 * figures checked against the store and against what this workload must have done.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePrometheus, prometheusParserAvailable, promValue } from "../helpers/prometheus.js";
import { startHarness, type HttpHarness } from "./harness.js";

let h: HttpHarness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

async function scrape(token: string | undefined): Promise<{ status: number; type: string | null; text: string }> {
  const res = await h.call("GET", "/metrics", { token });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

describe("GET /metrics", () => {
  it("needs the metrics scope (or above): no token is 401", async () => {
    expect((await scrape(undefined)).status).toBe(401);
    expect((await scrape(h.tokens.metrics)).status).toBe(200);
    expect((await scrape(h.tokens.read)).status).toBe(200);
  });

  it.skipIf(!prometheusParserAvailable())(
    "after a known workload, the figures match the store and the work done",
    async () => {
      const hello = 3;
      for (let i = 0; i < hello; i++)
        await h.start("hello", { name: `m${i}` }, { until: (r) => r.status === "succeeded" });
      await h.start("fails", {}, { until: (r) => r.status === "failed" });
      await h.start("f/open_gate", {}, { until: (r) => r.status === "waiting" });

      const { status, type, text } = await scrape(h.tokens.metrics);
      expect(status).toBe(200);
      expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
      const m = parsePrometheus(text);
      const snapshot = await h.store.metricsSnapshot();

      // Runs by workflow and status: exactly the store's figures, every one of them.
      const runs = m.get("sluice_runs")!;
      expect(runs.type).toBe("gauge");
      const key = (r: { workflow: string; status: string }) => `${r.workflow} ${r.status}`;
      const scraped = runs.samples.map((s) => ({
        workflow: s.labels.workflow!,
        status: s.labels.status!,
        count: s.value,
      }));
      expect(scraped.sort((a, b) => key(a).localeCompare(key(b)))).toEqual(
        [...snapshot.runs].sort((a, b) => key(a).localeCompare(key(b))),
      );
      expect(
        promValue(m, "sluice_runs", "sluice_runs", { workflow: "hello", status: "succeeded" }),
      ).toBeGreaterThanOrEqual(hello);
      expect(promValue(m, "sluice_runs", "sluice_runs", { workflow: "fails", status: "failed" })).toBe(
        await h.store.countRuns({ workflow: "fails", status: ["failed"] }),
      );

      // Approvals waiting: the open gate (and the store agrees).
      expect(snapshot.approvalsWaiting).toBeGreaterThanOrEqual(1);
      expect(promValue(m, "sluice_approvals_waiting", "sluice_approvals_waiting")).toBe(snapshot.approvalsWaiting);

      // Runnable depth and oldest age per group match the store (the worker here keeps up, so there may
      // be none: the store's counting is checked by the store contract's metricsSnapshot test).
      expect(m.get("sluice_runnable_runs")!.type).toBe("gauge");
      for (const q of snapshot.runnable)
        expect(promValue(m, "sluice_runnable_runs", "sluice_runnable_runs", { queue: q.queue })).toBe(q.count);

      // In-process figures: every hello run was one completed claim; its step was checkpointed.
      expect(m.get("sluice_run_attempt_duration_seconds")!.type).toBe("histogram");
      const attempts = promValue(
        m,
        "sluice_run_attempt_duration_seconds",
        "sluice_run_attempt_duration_seconds_count",
        { workflow: "hello", result: "completed" },
      );
      expect(attempts).toBe(await h.store.countRuns({ workflow: "hello", status: ["succeeded"] }));
      const steps = (outcome: string, workflow: string) =>
        promValue(m, "sluice_step_duration_seconds", "sluice_step_duration_seconds_count", { workflow, outcome });
      expect(steps("done", "hello")).toBe(attempts);
      expect(steps("error", "fails")).toBe(1);
      expect(
        promValue(m, "sluice_run_attempts_finished", "sluice_run_attempts_finished_total", { outcome: "succeeded" }),
      ).toBe(await h.store.countRuns({ status: ["succeeded"] }));
      expect(
        promValue(m, "sluice_run_attempts_finished", "sluice_run_attempts_finished_total", { outcome: "failed" }),
      ).toBe(await h.store.countRuns({ status: ["failed"] }));
      // Group commits happened, each with its duration; at least an enqueue and a completion per hello run.
      const batches = promValue(m, "sluice_commit_batch_commands", "sluice_commit_batch_commands_count")!;
      expect(batches).toBeGreaterThan(0);
      expect(promValue(m, "sluice_commit_duration_seconds", "sluice_commit_duration_seconds_count")).toBe(batches);
      expect(promValue(m, "sluice_commit_batch_commands", "sluice_commit_batch_commands_sum")).toBeGreaterThanOrEqual(
        hello * 2,
      );
      expect(promValue(m, "sluice_fenced_writes", "sluice_fenced_writes_total")).toBe(0);
      expect(promValue(m, "sluice_lease_losses", "sluice_lease_losses_total")).toBe(0);
      expect(promValue(m, "sluice_run_retries", "sluice_run_retries_total")).toBe(0);

      // Claim to start: one observation per claim executed here (each hello run was one claim).
      expect(m.get("sluice_run_claim_to_start_seconds")!.type).toBe("histogram");
      expect(
        promValue(m, "sluice_run_claim_to_start_seconds", "sluice_run_claim_to_start_seconds_count", {
          workflow: "hello",
        }),
      ).toBe(attempts);
      // Queue wait (due → start): one observation per claim too, each at least its claim-to-start part.
      const queued = (name: string) =>
        promValue(m, "sluice_run_queue_wait_seconds", `sluice_run_queue_wait_seconds_${name}`, { workflow: "hello" });
      expect(m.get("sluice_run_queue_wait_seconds")!.type).toBe("histogram");
      expect(queued("count")).toBe(attempts);
      expect(queued("sum")).toBeGreaterThanOrEqual(
        promValue(m, "sluice_run_claim_to_start_seconds", "sluice_run_claim_to_start_seconds_sum", {
          workflow: "hello",
        })!,
      );
      // Enqueue to finish: one observation per run finished here, matching the store's created→finished times.
      const e2e = (name: string, labels: Record<string, string>) =>
        promValue(m, "sluice_run_end_to_end_seconds", `sluice_run_end_to_end_seconds_${name}`, labels);
      const helloRuns = await h.store.listRuns({ workflow: "hello", status: ["succeeded"], limit: 1000 });
      expect(e2e("count", { workflow: "hello", status: "succeeded" })).toBe(helloRuns.length);
      const storeSeconds = helloRuns.reduce((n, r) => n + (r.finishedAt! - r.createdAt) / 1000, 0);
      // Observed when the outcome is written, just before the store stamps finished_at.
      expect(Math.abs(e2e("sum", { workflow: "hello", status: "succeeded" })! - storeSeconds)).toBeLessThan(
        0.25 * helloRuns.length,
      );
      expect(e2e("count", { workflow: "fails", status: "failed" })).toBe(
        await h.store.countRuns({ workflow: "fails", status: ["failed"] }),
      );
      // A run still waiting for its approval has not finished: no observation.
      expect(e2e("count", { workflow: "f/open_gate", status: "succeeded" })).toBeUndefined();
      // Cascade decisions: declared, none made (this project has no pipelines; see test/pipeline/cascade.test.ts).
      expect(m.get("sluice_cascade_decisions")!.type).toBe("counter");
      expect(m.get("sluice_cascade_decisions")!.samples).toEqual([]);
    },
  );
});
