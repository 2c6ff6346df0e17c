import { describe, expect, it } from "vitest";
import { EngineMetrics } from "./metrics.js";

async function value(m: EngineMetrics, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const metric = (await m.registry.getMetricsAsJSON()).find((x) => x.name === name);
  return metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
}

describe("EngineMetrics", () => {
  it("keeps what was recorded before the registry is first read, and records directly after", async () => {
    const m = new EngineMetrics();
    m.step("wf", "done", 0.002);
    m.step("wf", "done", 0.004);
    m.decided([{ outcome: "dispatched" }, { outcome: "dispatched" }, { outcome: "skipped" }]);
    m.commitFailed();
    expect(await value(m, "sluice_step_duration_seconds", { workflow: "wf", outcome: "done" })).toBeDefined();
    expect(await value(m, "sluice_cascade_decisions_total", { kind: "dispatched" })).toBe(2);
    expect(await value(m, "sluice_commit_failures_total")).toBe(1);
    m.commitFailed();
    expect(await value(m, "sluice_commit_failures_total")).toBe(2);
    const count = (await m.registry.getMetricsAsJSON())
      .find((x) => x.name === "sluice_step_duration_seconds")!
      .values.find((v) => (v as { metricName?: string }).metricName === "sluice_step_duration_seconds_count")!.value;
    expect(count).toBe(2);
  });

  it("applies a long backlog without losing any of it", async () => {
    const m = new EngineMetrics();
    for (let i = 0; i < 2_500; i++) m.commitFailed();
    expect(await value(m, "sluice_commit_failures_total")).toBe(2_500);
  });
});
