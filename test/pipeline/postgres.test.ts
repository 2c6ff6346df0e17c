/**
 * The same pipeline state on the Postgres store (it lives in steps and key-value records
 * only): the partitioned join fires once per day, debounce coalesces quick writes, and
 * the Quickstart cascade runs, on a real embedded Postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeValue } from "../../src/core/serde.js";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/store.js";
import { backfillProgress } from "../../src/pipeline/runtime/backfill-progress.js";
import { BACKFILL_WORKFLOW, type BackfillPayload } from "../../src/pipeline/runtime/backfill-workflow.js";
import { testDatabase } from "../helpers/postgres.js";
import { CONSUME, CUSTOMERS, ENRICH, producer, TICK } from "./fixtures.js";
import { startPipelines, type PipelineProject } from "./harness.js";

describe("pipelines on Postgres", () => {
  let p: PipelineProject;
  let store: PostgresStore;
  beforeAll(async () => {
    store = openPostgresStore(await testDatabase("pipelines"), { pollMs: 100 });
    await store.ready();
    p = await startPipelines(
      {
        "f/lake/ingest_events.ts": producer("events"),
        "f/lake/ingest_sessions.ts": producer("sessions"),
        "f/lake/refresh_customers.ts": CUSTOMERS,
        "f/lake/enrich.ts": ENRICH,
        "f/noisy/tick.ts": TICK,
        "f/noisy/consume.ts": CONSUME,
      },
      { store },
    );
  });
  afterAll(async () => {
    await p?.close();
    await store?.close();
  });

  it("joins per partition and debounces with the store's compare-and-set", async () => {
    const run = async (script: string, partition?: string) => {
      await (await p.pipelines.runScript(script, {}, partition ? { partition } : {})).result({ timeoutMs: 15_000 });
      await p.settle();
    };
    await run("f/lake/refresh_customers");
    await run("f/lake/ingest_events", "2026-05-15");
    await run("f/lake/ingest_events", "2026-05-16");
    expect(await p.runsOf("f/lake/enrich")).toHaveLength(0);
    await run("f/lake/ingest_sessions", "2026-05-15");
    await run("f/lake/refresh_customers");
    const joins = await p.runsOf("f/lake/enrich");
    expect(joins.map((r) => [r.status, decodeValue<{ partition: string }>(r.payload).partition])).toEqual([
      ["succeeded", "2026-05-15"],
    ]);

    await Promise.all([1, 2, 3].map((n) => p.engine.enqueueRun("f/noisy/tick", { n })));
    await p.settle({ quietMs: 1_500 });
    expect(await p.runsOf("f/noisy/consume")).toHaveLength(1);
  });

  it("runs a durable backfill: one plan per partition, and a second one skips what is done", async () => {
    const payload: BackfillPayload = {
      folder: "f/lake",
      steps: ["f/lake/ingest_events.ts"],
      partitions: ["2026-07-01", "2026-07-02", "2026-07-03"],
      concurrency: 2,
    };
    const first = await p.engine.enqueueRun(BACKFILL_WORKFLOW, payload);
    expect(await first.result({ timeoutMs: 30_000 })).toEqual({
      succeeded: payload.partitions,
      skipped: [],
      failed: [],
    });
    const progress = await backfillProgress(store, first.id);
    expect(progress.partitions.map((x) => x.state)).toEqual(["succeeded", "succeeded", "succeeded"]);
    const again = await p.engine.enqueueRun(BACKFILL_WORKFLOW, {
      ...payload,
      partitions: [...payload.partitions, "2026-07-04"],
    });
    expect(await again.result({ timeoutMs: 30_000 })).toEqual({
      succeeded: ["2026-07-04"],
      skipped: payload.partitions,
      failed: [],
    });
    expect((await backfillProgress(store, again.id)).counts).toMatchObject({ skipped: 3, succeeded: 1 });
  });
});
