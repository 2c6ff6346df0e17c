/**
 * `GET /metrics` in the Prometheus text format: the engine's in-process counters and
 * histograms (`engine/metrics.ts`) plus the figures the database holds, read at scrape
 * time with one grouped query each (`Store.metricsSnapshot`): runs by workflow and
 * status, runnable runs and the age of the oldest per worker group, approvals waiting.
 * The database figures go into a registry made for the scrape, so a workflow or group
 * that has gone shows no stale series.
 */
import { AggregatorRegistry, Gauge, Registry } from "prom-client";
import type { Engine } from "../engine/engine.js";
import type { MetricsJson } from "../lanes/lane-metrics.js";

/** The body and content type of one scrape. */
export interface Scrape {
  contentType: string;
  body: string;
}

/**
 * Reads the store's figures and renders every metric of `engine`, summed with `lanes`: the
 * in-process metrics of this server's lane workers (`lanes/lane-metrics.ts`), if any.
 */
export async function scrapeMetrics(engine: Engine, lanes: MetricsJson[] = []): Promise<Scrape> {
  const snapshot = await engine.store.metricsSnapshot();
  const registry = new Registry();
  const runs = new Gauge({
    name: "sluice_runs",
    help: "Runs in the database by workflow and status (finished ones until retention deletes them)",
    labelNames: ["workflow", "status"] as const,
    registers: [registry],
  });
  for (const r of snapshot.runs) runs.set({ workflow: r.workflow, status: r.status }, r.count);
  const depth = new Gauge({
    name: "sluice_runnable_runs",
    help: "Runs claimable now (due, not yet claimed) by worker group",
    labelNames: ["queue"] as const,
    registers: [registry],
  });
  const age = new Gauge({
    name: "sluice_runnable_oldest_age_seconds",
    help: "How long the oldest claimable run of each worker group has been due",
    labelNames: ["queue"] as const,
    registers: [registry],
  });
  for (const q of snapshot.runnable) {
    depth.set({ queue: q.queue }, q.count);
    age.set({ queue: q.queue }, Math.max(0, snapshot.now - q.oldestReadyAt) / 1000);
  }
  new Gauge({
    name: "sluice_approvals_waiting",
    help: "Approvals not yet decided on waiting runs",
    registers: [registry],
  }).set(snapshot.approvalsWaiting);
  const leadership = engine.scheduler?.leadership().state;
  if (leadership !== undefined)
    new Gauge({
      name: "sluice_scheduler_leader",
      help: "1 while this process's scheduler leads (fires cron, runs retention), 0 on standby or unknown",
      registers: [registry],
    }).set(leadership === "leader" ? 1 : 0);
  // Lane workers' series are summed with this process's own (same names and labels: one series).
  const own: Registry =
    lanes.length === 0
      ? engine.metrics.registry
      : (AggregatorRegistry.aggregate([
          (await engine.metrics.registry.getMetricsAsJSON()) as MetricsJson,
          ...lanes,
        ]) as Registry);
  const merged = Registry.merge([own, registry]);
  return { contentType: merged.contentType, body: await merged.metrics() };
}
