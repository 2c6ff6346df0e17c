import { AggregatorRegistry, Counter, Histogram, type Metric, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { TallyCounter, TallyHistogram } from "./metric-tally.js";

const BUCKETS = [0.001, 0.01, 0.1, 1];
const VALUES = [0, 0.001, 0.0005, 0.02, 0.5, 3, 7.25, 0.1];

/** The same observations into prom-client's own instruments and into tallies, each in its own registry. */
function twin(): { prom: Registry; tally: Registry } {
  const prom = new Registry();
  const tally = new Registry();
  const ph = new Histogram({
    name: "h",
    help: "a histogram",
    labelNames: ["workflow", "result"],
    buckets: BUCKETS,
    registers: [],
  });
  const th = new TallyHistogram({
    name: "h",
    help: "a histogram",
    labelNames: ["workflow", "result"],
    buckets: BUCKETS,
  });
  const pu = new Histogram({ name: "u", help: "unlabelled, never observed", buckets: BUCKETS, registers: [] });
  const tu = new TallyHistogram({ name: "u", help: "unlabelled, never observed", buckets: BUCKETS });
  const pc = new Counter({ name: "c_total", help: "a counter", labelNames: ["kind"], registers: [] });
  const tc = new TallyCounter({ name: "c_total", help: "a counter", labelNames: ["kind"] });
  const pz = new Counter({ name: "z_total", help: "unlabelled, never counted", registers: [] });
  const tz = new TallyCounter({ name: "z_total", help: "unlabelled, never counted" });
  for (const [i, v] of VALUES.entries()) {
    const labels = { workflow: i % 3 ? "a" : 'b\nwith "quotes"', result: i % 2 ? "completed" : "suspended" };
    ph.observe(labels, v);
    th.observe(labels, v);
    pc.inc({ kind: i % 2 ? "x" : "y" }, i);
    tc.inc({ kind: i % 2 ? "x" : "y" }, i);
  }
  for (const m of [ph, pu, pc, pz]) prom.registerMetric(m as Metric);
  for (const m of [th, tu, tc, tz]) tally.registerMetric(m as unknown as Metric);
  return { prom, tally };
}

describe("metric tallies", () => {
  it("render the same Prometheus text as prom-client's Counter and Histogram for the same observations", async () => {
    const { prom, tally } = twin();
    const text = await tally.metrics();
    expect(text).toBe(await prom.metrics());
    expect(text).toContain('h_bucket{le="0.01",workflow="a",result="completed"}');
  });

  it("give the same JSON, which prom-client's cluster aggregation sums", async () => {
    const { prom, tally } = twin();
    const json = await tally.getMetricsAsJSON();
    // prom-client adds an empty `exemplar` to each value (exemplars are off): nothing else differs.
    const withoutExemplars = (await prom.getMetricsAsJSON()).map((m) => ({
      ...m,
      values: m.values.map((value) => {
        const { exemplar: _none, ...v } = value as typeof value & { exemplar?: unknown };
        return v;
      }),
    }));
    expect(json).toEqual(withoutExemplars);
    const summed = await AggregatorRegistry.aggregate([json, json]).getMetricsAsJSON();
    const count = summed
      .find((m) => m.name === "h")!
      .values.filter((v) => (v as { metricName?: string }).metricName === "h_count")
      .reduce((n, v) => n + v.value, 0);
    expect(count).toBe(2 * VALUES.length);
  });

  it("reset like prom-client: labelled series go, an unlabelled one starts again at zero", async () => {
    const h = new TallyHistogram({ name: "r", help: "r", buckets: [1] });
    h.observe(0.5);
    h.reset();
    const values = (await h.get()).values;
    expect(values.map((v) => v.value)).toEqual([0, 0, 0, 0]);
    const c = new TallyCounter({ name: "k", help: "k", labelNames: ["x"] });
    c.inc({ x: "1" });
    c.reset();
    expect((await c.get()).values).toEqual([]);
  });

  it("refuse a value that is not a finite number", () => {
    const h = new TallyHistogram({ name: "n", help: "n", buckets: [1] });
    expect(() => h.observe(Number.NaN)).toThrow(/not a finite number/);
  });
});
