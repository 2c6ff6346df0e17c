/**
 * Native triggers and per-step options: a schedule row becomes the script's cron (its
 * fire time picks the partition), webhooks run a script with the request body (a dynamic
 * partition key read from it), the freshness watchdog re-runs a stale script and says
 * why, `// retry` applies to cascade runs only, `// tag` routes to a worker group, and
 * partition options (tz, format, start) resolve as the seed says.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeValue } from "../../src/core/serde.js";
import { buildPayload, freshnessOf, FreshnessWatchdog, readDecisions } from "../../src/pipeline/runtime/index.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { SkippableClock } from "../helpers/clock.js";
import { makeProject } from "../helpers/project.js";
import { startPipelines, type PipelineProject } from "./harness.js";

const FILES: Record<string, string> = {
  "f/ops/pipeline.json": JSON.stringify({
    triggers: { nightly: { schedule: { cron: "0 3 * * *", timezone: "UTC" } }, receive: { webhook: true } },
  }),
  "f/ops/nightly.ts": `// pipeline
// on schedule
// partitioned daily
export async function main(partition: string) { return partition; }
`,
  "f/ops/receive.ts": `// pipeline
// on webhook
// partitioned dynamic key="$.tenant_id"
export async function main(partition: string, amount: number) { return { partition, amount }; }
`,
  "f/ops/closed.ts": `// pipeline
// on webhook
export async function main() { return 1; }
`,
  "f/ops/stale.ts": `// pipeline
// freshness 1s
export async function main() { return "refreshed"; }
`,
  "f/ops/poke.ts": `// pipeline
import * as wmill from 'windmill-client';
export async function main() { await wmill.writeS3File({ s3: 'ops/poke.txt' }, 'x'); }
`,
  "f/ops/flaky.ts": `// pipeline
// on s3://ops/poke.txt
// retry 2 1s
// tag gpu
import * as wmill from 'windmill-client';
export async function main() {
  const n = ((await wmill.getResource('f/ops/flaky_count', true)) ?? 0) + 1;
  await wmill.setResource(n, 'f/ops/flaky_count');
  if (n % 2 === 1) throw new Error('flaky attempt ' + n);
  return n;
}
`,
  "f/ops/zones.ts": `// pipeline
// partitioned daily tz="America/New_York" format="%Y/%m/%d"
export async function main(partition: string) { return partition; }
`,
  "f/ops/anchored.ts": `// pipeline
// partitioned daily start="2999-01-01"
export async function main(partition?: string) { return partition ?? "no partition"; }
`,
};

describe("native triggers and step options", () => {
  let p: PipelineProject;
  let clock: SkippableClock;
  beforeAll(async () => {
    const root = makeProject(FILES);
    clock = new SkippableClock();
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db"), clock });
    p = await startPipelines({}, { root, store, scheduler: true });
  });
  afterAll(async () => {
    await p?.close();
    await p?.store.close();
  });

  it("turns a schedule row into the script's cron; the tick's fire time picks the partition", async () => {
    expect((await p.store.listSchedules()).map((s) => [s.workflow, s.cron, s.timezone])).toEqual([
      ["f/ops/nightly", "0 3 * * *", "UTC"],
    ]);
    const [schedule] = await p.store.listSchedules();
    clock.advance(schedule!.nextAt! - clock.now() + 1);
    expect(await p.engine.scheduler!.fireDue()).toBe(1);
    p.engine.events.emit("work");
    await p.settle();
    const [run] = await p.runsOf("f/ops/nightly");
    expect(run!.status).toBe("succeeded");
    expect(decodeValue(run!.result)).toBe(new Date(schedule!.nextAt!).toISOString().slice(0, 10));
  });

  it("runs a webhook with the body as arguments and reads a dynamic partition from it", async () => {
    const h = await p.pipelines.webhook("f/ops/receive", { tenant_id: "acme", amount: 5, extra: true });
    expect(await h.result({ timeoutMs: 10_000 })).toEqual({ partition: "acme", amount: 5 });
    const logs = (await p.store.getLogs(h.id)).map((l) => l.message);
    expect(logs).toContain("ignored argument(s) tenant_id, extra: main takes (partition, amount)");
    await expect(p.pipelines.webhook("f/ops/closed", {})).rejects.toMatchObject({
      code: "PIPELINE_TRIGGER_NOT_CONFIGURED",
    });
    await expect(p.pipelines.webhook("f/ops/nightly", {})).rejects.toThrow(/needs a `\/\/ on webhook` line/);
  });

  it("fails a dynamic-partition run without the key, with a clear error", async () => {
    const h = await p.engine.enqueueRun("f/ops/receive", { amount: 1 });
    await expect(h.result({ timeoutMs: 10_000 })).rejects.toThrow(/tenant_id/);
  });

  it("re-runs a stale script from the freshness watchdog and records why", async () => {
    const watchdog = new FreshnessWatchdog(p.pipelines, 60_000);
    const t0 = Date.now();
    expect(await watchdog.check(t0)).toEqual([]);
    const [decision] = await watchdog.check(t0 + 1_500);
    expect(decision).toMatchObject({ outcome: "freshness-run", subscriber: "f/ops/stale.ts" });
    expect(decision!.reason).toMatch(/no successful run within its freshness window of 1s/);
    expect(await watchdog.check(t0 + 1_600)).toEqual([]);
    await p.settle();
    const [run] = await p.runsOf("f/ops/stale");
    expect(decodeValue(run!.result)).toBe("refreshed");
    expect(decodeValue<{ _sluice: { trigger: string; reason: string } }>(run!.payload)._sluice).toMatchObject({
      trigger: "freshness",
    });
    expect(await watchdog.check(run!.finishedAt! + 500)).toEqual([]);
    const [late] = await watchdog.check(run!.finishedAt! + 2_500);
    expect(late!.reason).toMatch(/last successful run finished 3s ago, over its freshness window of 1s/);
    // Stale since the window expired (last success + 1 s), not since the last success.
    const state = await freshnessOf(p.store, p.pipelines.member("f/ops/stale"), run!.finishedAt! + 2_500, false);
    expect(state).toMatchObject({ stale: true, lastSuccess: run!.finishedAt!, expiresAt: run!.finishedAt! + 1_000 });
    await p.settle();
    await watchdog.stop();
    expect((await readDecisions(p.store)).filter((d) => d.outcome === "freshness-run")).toHaveLength(2);
  });

  it("retries a cascade-started run (// retry 2 1s) on its worker group (// tag gpu), but not a manual one", async () => {
    const poke = await p.engine.enqueueRun("f/ops/poke", {});
    await poke.result({ timeoutMs: 10_000 });
    await p.settle({ timeoutMs: 15_000 });
    const [cascaded] = await p.runsOf("f/ops/flaky");
    expect(cascaded).toMatchObject({ status: "succeeded", attempt: 2, maxAttempts: 3, queue: "gpu" });
    expect(decodeValue(cascaded!.result)).toBe(2);
    const manual = await p.engine.enqueueRun("f/ops/flaky", {});
    await expect(manual.result({ timeoutMs: 10_000 })).rejects.toThrow(/flaky attempt 3/);
    expect((await p.engine.getRun(manual.id))!.attempt).toBe(1);
  });

  it("resolves time partitions in their zone and format, and runs without one before start=", async () => {
    const firedAt = Date.parse("2026-05-16T02:30:00Z");
    const zoned = await p.engine.enqueueRun("f/ops/zones", buildPayload({}, { trigger: "manual", firedAt }));
    expect(await zoned.result({ timeoutMs: 10_000 })).toBe("2026/05/15");
    const anchored = await p.engine.enqueueRun("f/ops/anchored", {});
    expect(await anchored.result({ timeoutMs: 10_000 })).toBe("no partition");
    const logs = (await p.store.getLogs(anchored.id)).map((l) => l.message).join("\n");
    expect(logs).toMatch(/before start=2999-01-01; the run proceeds without a partition argument/);
  });
});
