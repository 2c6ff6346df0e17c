/** Debounce (10 quick writes → one run, last write wins) and the depth cap of the cascade. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeValue } from "../../src/core/serde.js";
import { MAX_CASCADE_DEPTH, readDecisions } from "../../src/pipeline/runtime/index.js";
import { parsePrometheus, prometheusParserAvailable } from "../helpers/prometheus.js";
import { CONSUME, LOOP, TICK } from "./fixtures.js";
import { startPipelines, type PipelineProject } from "./harness.js";

describe("cascade", () => {
  let p: PipelineProject;
  beforeAll(async () => {
    p = await startPipelines({
      "f/noisy/tick.ts": TICK,
      "f/noisy/consume.ts": CONSUME,
      "f/loop/a.ts": LOOP("a", "b").replace(
        "// on s3://loop/b.json\n",
        "// on s3://loop/b.json\n// on s3://loop/start.json\n",
      ),
      "f/loop/b.ts": LOOP("b", "a"),
    });
  });
  afterAll(async () => p?.close());

  it("debounces 10 quick writes into one run that sees the last write", async () => {
    const producers: string[] = [];
    for (let n = 1; n <= 10; n++) {
      const h = await p.engine.enqueueRun("f/noisy/tick", { n });
      await h.result({ timeoutMs: 10_000 });
      producers.push(h.id);
    }
    await p.settle({ quietMs: 1_500 });
    const runs = await p.runsOf("f/noisy/consume");
    expect(runs).toHaveLength(1);
    expect(decodeValue(runs[0]!.result)).toBe(10);
    const decisions = (await readDecisions(p.store, { limit: 100 }))
      .filter((d) => d.subscriber === "f/noisy/consume.ts")
      .reverse();
    expect(decisions.map((d) => d.outcome)).toEqual(["debounce-scheduled", ...Array(9).fill("debounced")]);
    expect(new Set(decisions.map((d) => d.run))).toEqual(new Set([runs[0]!.id]));
    // /metrics counts every decision of this process by kind: the same figures as the decision log.
    if (prometheusParserAvailable()) {
      const m = parsePrometheus(await p.engine.metrics.registry.metrics());
      const logged = new Map<string, number>();
      for (const d of await readDecisions(p.store, { limit: 2_000 }))
        logged.set(d.outcome, (logged.get(d.outcome) ?? 0) + 1);
      const counted = new Map(m.get("sluice_cascade_decisions")!.samples.map((s) => [s.labels.kind!, s.value]));
      expect(counted).toEqual(logged);
      expect(counted.get("debounced")).toBe(9);
    }
    const logs = await p.store.getLogs(runs[0]!.id);
    expect(logs.map((l) => l.message).join("\n")).toContain(
      `10 write(s) coalesced; running for the last one (run ${producers[9]}`,
    );
  });

  it(`stops a cycle after ${MAX_CASCADE_DEPTH} hops and records why`, async () => {
    const start = await p.pipelines.runScript("f/loop/a");
    await start.result({ timeoutMs: 10_000 });
    await p.settle();
    const all = [...(await p.runsOf("f/loop/a")), ...(await p.runsOf("f/loop/b"))];
    expect(all).toHaveLength(MAX_CASCADE_DEPTH + 1);
    const depths = all.map((r) => decodeValue<{ _sluice: { depth: number } }>(r.payload)._sluice.depth).sort();
    expect(depths).toEqual([0, 1, 2, 3, 4, 5]);
    const [last] = await readDecisions(p.store, { limit: 1 });
    expect(last).toMatchObject({ outcome: "skipped", subscriber: "f/loop/a.ts", depth: MAX_CASCADE_DEPTH + 1 });
    expect(last!.reason).toContain("depth cap");
  });
});

describe("slot housekeeping", () => {
  it("deletes idle join slots and closed debounce windows once old, and keeps live ones", async () => {
    const { openSqliteStore } = await import("../../src/store/sqlite/store.js");
    const { pruneSlots } = await import("../../src/pipeline/runtime/prune.js");
    const { offerJoin } = await import("../../src/pipeline/runtime/join.js");
    const { tempDir } = await import("../helpers/tmp.js");
    const store = openSqliteStore({ path: `${tempDir()}/s.db` });
    try {
      await offerJoin(store, "j.ts", "2026-01-01", "a", "r1", ["a"], () => ({}));
      await offerJoin(store, "j.ts", "2026-01-02", "a", "r2", ["a", "b"], () => ({}));
      expect(await pruneSlots(store, Date.now())).toBe(0);
      expect(await pruneSlots(store, Date.now() + 31 * 86_400_000)).toBe(1);
      expect((await store.kvList("pipeline:join:")).map((r) => r.key)).toEqual(["pipeline:join:j.ts 2026-01-02"]);
    } finally {
      await store.close();
    }
  });
});
