/**
 * Seed 001's partitioned join: the enriched table runs once per day, only when both the
 * day's events and sessions are written; another day opens its own slot; refreshing the
 * unpartitioned customers reference fires nothing. Mismatched schemes are refused at load.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeValue } from "../../src/core/serde.js";
import { listJoins, PipelineCatalog, readDecisions } from "../../src/pipeline/runtime/index.js";
import { makeProject } from "../helpers/project.js";
import { CUSTOMERS, ENRICH, producer } from "./fixtures.js";
import { startPipelines, type PipelineProject } from "./harness.js";

describe("seed 001 partitioned join (trigger all)", () => {
  let p: PipelineProject;
  const run = async (script: string, partition?: string) => {
    const h = await p.pipelines.runScript(script, {}, partition ? { partition } : {});
    await h.result({ timeoutMs: 15_000 });
    await p.settle();
    return h.id;
  };
  const enrichRuns = () => p.runsOf("f/lake/enrich");

  beforeAll(async () => {
    p = await startPipelines({
      "f/lake/ingest_events.ts": producer("events"),
      "f/lake/ingest_sessions.ts": producer("sessions"),
      "f/lake/refresh_customers.ts": CUSTOMERS,
      "f/lake/enrich.ts": ENRICH,
    });
    await run("f/lake/refresh_customers");
  });
  afterAll(async () => p?.close());

  it("waits for the second partition-bearing input, then runs once for that day", async () => {
    const events = await run("f/lake/ingest_events", "2026-05-15");
    expect(await enrichRuns()).toHaveLength(0);
    const [pending] = await readDecisions(p.store, { limit: 1 });
    expect(pending).toMatchObject({ outcome: "join-pending", producerRun: events, partition: "2026-05-15" });
    expect(pending!.reason).toContain("s3://lake/raw/sessions/{partition}/sessions.parquet");

    await run("f/lake/ingest_sessions", "2026-05-15");
    const runs = await enrichRuns();
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe("succeeded");
    expect(decodeValue<{ partition: string }>(runs[0]!.payload).partition).toBe("2026-05-15");
    const out = await p.pipelines.assets().then((a) => a.objects.get("lake/marts/enriched/2026-05-15/data.parquet"));
    expect(JSON.parse(new TextDecoder().decode(out))).toEqual([
      [{ events: "2026-05-15" }],
      [{ sessions: "2026-05-15" }],
      [{ customer: "acme" }],
    ]);
  });

  it("opens an independent slot for another day", async () => {
    await run("f/lake/ingest_events", "2026-05-16");
    expect(await enrichRuns()).toHaveLength(1);
    const slots = await listJoins(p.store);
    const day16 = slots.find((s) => s.partition === "2026-05-16");
    expect(Object.keys(day16!.state.inputs)).toEqual(["s3://lake/raw/events/{partition}/events.parquet"]);
    const day15 = slots.find((s) => s.partition === "2026-05-15");
    expect(day15!.state.generation).toBe(2);
    expect(Object.keys(day15!.state.inputs)).toEqual([]);
  });

  it("does not fire past partitions when the unpartitioned reference is refreshed", async () => {
    const refresh = await run("f/lake/refresh_customers");
    expect(await enrichRuns()).toHaveLength(1);
    const [skip] = await readDecisions(p.store, { limit: 1 });
    expect(skip).toMatchObject({ outcome: "skipped", producerRun: refresh, subscriber: "f/lake/enrich.ts" });
    expect(skip!.reason).toContain("reference input");
  });

  it("completes the second day when its sessions arrive (still one run per day)", async () => {
    await run("f/lake/ingest_sessions", "2026-05-16");
    const runs = await enrichRuns();
    expect(runs.map((r) => decodeValue<{ partition: string }>(r.payload).partition)).toEqual([
      "2026-05-15",
      "2026-05-16",
    ]);
  });

  it("counts a write that fires nothing (a plan's step, cascade: false) towards the join", async () => {
    // a plan's or backfill's step writes the day's sessions without cascading (trigger "plan")
    const h = await p.pipelines.runScript("f/lake/ingest_sessions", {}, { partition: "2026-05-17", cascade: false });
    await h.result({ timeoutMs: 15_000 });
    await p.settle();
    expect(await enrichRuns()).toHaveLength(2);
    const slot = (await listJoins(p.store)).find((s) => s.partition === "2026-05-17");
    expect(Object.keys(slot!.state.inputs)).toEqual(["s3://lake/raw/sessions/{partition}/sessions.parquet"]);
    // the day's events arriving by the cascade complete the join: both inputs are materialized
    await run("f/lake/ingest_events", "2026-05-17");
    const runs = await enrichRuns();
    expect(runs.map((r) => decodeValue<{ partition: string }>(r.payload).partition)).toContain("2026-05-17");
    expect(runs).toHaveLength(3);
  });
});

describe("join scope", () => {
  it("refuses at load time a trigger-all step whose partition-bearing inputs use different schemes", () => {
    const root = makeProject({
      "f/mix/daily.ts": producer("events"),
      "f/mix/hourly.ts": producer("sessions").replace("// partitioned daily", "// partitioned hourly"),
      "f/mix/enrich.ts": ENRICH,
    });
    const folder = PipelineCatalog.scan(root).folder("f/mix")!;
    expect(folder.ok).toBe(false);
    const err = folder.diagnostics.find((d) => d.code === "JOIN_SCHEME_MISMATCH")!;
    expect(err).toMatchObject({ severity: "error", script: "f/mix/enrich.ts", line: 9 });
  });
});
