/**
 * `docs/grafana/sluice-dashboard.json`: valid Grafana dashboard JSON whose queries name only
 * metrics that `GET /metrics` serves (parsed with the real Prometheus parser), and every
 * metric family `/metrics` serves has a panel.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "../helpers/project.js";
import { parsePrometheus, prometheusParserAvailable, type PromFamily } from "../helpers/prometheus.js";
import { startHarness, type HttpHarness } from "../http/harness.js";

interface Panel {
  type: string;
  id: number;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type: string; uid: string };
  targets?: Array<{ expr: string; refId: string }>;
}

const dashboard = JSON.parse(readFileSync(join(REPO, "docs", "grafana", "sluice-dashboard.json"), "utf8")) as {
  title: string;
  uid: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: Array<{ name: string }> };
};

/** The metric names a PromQL expression uses. */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/\bsluice_[a-z0-9_]+/g)].map((m) => m[0]);
}

/** True when `name` (as written in a query) is a series of `family`. */
function belongsTo(name: string, family: PromFamily): boolean {
  if (name === family.name) return true;
  if (family.type === "counter") return name === `${family.name}_total`;
  if (family.type === "histogram") return ["_bucket", "_sum", "_count"].some((s) => name === family.name + s);
  return false;
}

let h: HttpHarness;
beforeAll(async () => {
  h = await startHarness();
  await h.start("hello", { name: "grafana" }, { until: (r) => r.status === "succeeded" });
});
afterAll(async () => h?.close());

describe("Grafana dashboard", () => {
  it("is a dashboard: unique panel ids, a grid position each, queries on the datasource variable", () => {
    expect(dashboard).toMatchObject({ title: "Sluice", uid: "sluice-overview" });
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(["datasource", "workflow"]);
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dashboard.panels) {
      expect(p.gridPos.w).toBeGreaterThan(0);
      expect(p.gridPos.x + p.gridPos.w).toBeLessThanOrEqual(24);
      if (p.type === "row") continue;
      expect(p.datasource).toEqual({ type: "prometheus", uid: "${datasource}" });
      expect(p.targets!.length).toBeGreaterThan(0);
      for (const t of p.targets!) expect(metricNames(t.expr).length, `${p.title}: ${t.expr}`).toBeGreaterThan(0);
    }
  });

  it.skipIf(!prometheusParserAvailable())(
    "uses only metrics /metrics serves, and has a panel for every family it serves",
    async () => {
      const res = await h.call("GET", "/metrics", { token: h.tokens.metrics });
      expect(res.status).toBe(200);
      const families = [...parsePrometheus(await res.text()).values()].filter((f) => f.name.startsWith("sluice_"));
      const used = dashboard.panels.flatMap((p) => (p.targets ?? []).flatMap((t) => metricNames(t.expr)));
      for (const name of used)
        expect(
          families.some((f) => belongsTo(name, f)),
          `${name} is not served by /metrics`,
        ).toBe(true);
      for (const f of families)
        expect(
          used.some((name) => belongsTo(name, f)),
          `no panel uses ${f.name}`,
        ).toBe(true);
      expect(families.length).toBeGreaterThanOrEqual(17);
    },
  );
});
