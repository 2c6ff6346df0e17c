import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { afterEach, describe, expect, it } from "vitest";
import { batchOptions, OTEL_BATCH_SIZE, OTEL_QUEUE_SIZE, OTEL_SCHEDULE_DELAY_MS } from "./batch-options.js";

const noop = { export: () => {}, shutdown: async () => {} };

/** What a `BatchSpanProcessor` built as `--otel` builds it ends up with (the SDK reads process.env for what is left out). */
function effective(env: Record<string, string>) {
  for (const [k, v] of Object.entries(env)) process.env[k] = v;
  const p = new BatchSpanProcessor(noop, batchOptions(process.env)) as unknown as Record<string, number>;
  return { delay: p._scheduledDelayMillis, batch: p._maxExportBatchSize, queue: p._maxQueueSize };
}

const VARS = ["OTEL_BSP_SCHEDULE_DELAY", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "OTEL_BSP_MAX_QUEUE_SIZE"];

describe("batchOptions", () => {
  afterEach(() => {
    for (const k of VARS) delete process.env[k];
  });

  it("posts larger batches every second when the environment sets nothing", () => {
    expect(batchOptions({})).toEqual({
      scheduledDelayMillis: OTEL_SCHEDULE_DELAY_MS,
      maxExportBatchSize: OTEL_BATCH_SIZE,
      maxQueueSize: OTEL_QUEUE_SIZE,
    });
    expect(OTEL_QUEUE_SIZE).toBeGreaterThan(OTEL_BATCH_SIZE);
    expect(effective({})).toEqual({ delay: 1000, batch: 2048, queue: 8192 });
  });

  it("leaves each setting the standard variables give to the SDK", () => {
    expect(effective({ OTEL_BSP_SCHEDULE_DELAY: "250" })).toEqual({ delay: 250, batch: 2048, queue: 8192 });
  });

  it("hands both sizes back to the SDK when either is set, so a batch never outgrows the queue", () => {
    expect(effective({ OTEL_BSP_MAX_QUEUE_SIZE: "1000" })).toEqual({ delay: 1000, batch: 512, queue: 1000 });
    delete process.env.OTEL_BSP_MAX_QUEUE_SIZE;
    expect(effective({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "100" })).toEqual({ delay: 1000, batch: 100, queue: 2048 });
  });

  it("treats an empty or unparsable variable as unset, as the SDK does", () => {
    expect(batchOptions({ OTEL_BSP_SCHEDULE_DELAY: " ", OTEL_BSP_MAX_QUEUE_SIZE: "lots" })).toEqual(batchOptions({}));
  });
});
