/**
 * The batch span processor's options of `--otel` (`cli/otel.ts`). Pure.
 *
 * The SDK's HTTP transport costs ≈ 350–600 µs of CPU per request whatever its size
 * (docs/PERFORMANCE.md, "Seventh pass"), so `--otel` posts larger batches than the SDK's
 * defaults (512 spans a request, 2,048 queued, every 5 s): up to 2,048 spans a request, 8,192
 * queued (the SDK's ratio of queue to batch), every second. The queue only bounds what is held
 * while the collector is slow: a span that finds it full is dropped, so a larger one drops fewer.
 *
 * Each default applies only where the standard variables say nothing: `OTEL_BSP_SCHEDULE_DELAY`
 * replaces the delay, and either of `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` / `OTEL_BSP_MAX_QUEUE_SIZE`
 * hands both sizes back to the SDK (its default for the one not set), so a user who sizes the
 * queue never meets a batch larger than it. Left out options are read by the SDK's
 * `BatchSpanProcessor` from the environment as usual (`OTEL_BSP_EXPORT_TIMEOUT` included).
 */

/** The options of the SDK's `BatchSpanProcessor` that `--otel` may set. */
export interface BatchOptions {
  scheduledDelayMillis?: number;
  maxExportBatchSize?: number;
  maxQueueSize?: number;
}

/** Spans per export request when the environment sets no size. */
export const OTEL_BATCH_SIZE = 2048;
/** Spans held for export when the environment sets no size (four batches). */
export const OTEL_QUEUE_SIZE = 4 * OTEL_BATCH_SIZE;
/** Milliseconds between exports when `OTEL_BSP_SCHEDULE_DELAY` is not set. */
export const OTEL_SCHEDULE_DELAY_MS = 1000;

/** What the SDK takes from a variable: a number (it ignores an empty or unparsable value, as unset). */
function isSet(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== "" && !Number.isNaN(Number(value));
}

/** The options to pass the SDK's `BatchSpanProcessor`: Sluice's defaults where `env` sets nothing. */
export function batchOptions(env: Record<string, string | undefined>): BatchOptions {
  const options: BatchOptions = {};
  if (!isSet(env.OTEL_BSP_SCHEDULE_DELAY)) options.scheduledDelayMillis = OTEL_SCHEDULE_DELAY_MS;
  if (!isSet(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE) && !isSet(env.OTEL_BSP_MAX_QUEUE_SIZE)) {
    options.maxExportBatchSize = OTEL_BATCH_SIZE;
    options.maxQueueSize = OTEL_QUEUE_SIZE;
  }
  return options;
}
