/**
 * `sluice_run_queue_wait_seconds`: from the moment a run became due to its execution
 * starting, time in the queue included. Runs enqueued while no worker runs wait in the
 * queue until one starts (a second engine on the same SQLite file); a run with a later
 * `runAt` is due only then and waits almost nothing. `sluice_run_claim_to_start_seconds`
 * stays the worker's own part (claim received → execution started).
 */
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { createEngine, defineWorkflow, type Engine } from "../../src/index.js";
import { delay, tempDir } from "../helpers/tmp.js";

const wf = defineWorkflow<{ n: number }>("queued", { handler: async (p, ctx) => ctx.run("one", () => p.n) });
const engines: Engine[] = [];
afterAll(async () => {
  for (const e of engines) await e.stop();
});

/** The cumulative bucket counts (`le` → count) and the count of a histogram for `workflow`. */
async function histogram(engine: Engine, name: string, workflow: string) {
  const metric = (await engine.metrics.registry.getMetricsAsJSON()).find((m) => m.name === name)!;
  const values = metric.values as Array<{
    labels: Record<string, string | number>;
    value: number;
    metricName?: string;
  }>;
  const ours = values.filter((v) => v.labels.workflow === workflow);
  const bucket = (le: number) => ours.find((v) => v.metricName === `${name}_bucket` && v.labels.le === le)!.value;
  return { bucket, count: ours.find((v) => v.metricName === `${name}_count`)!.value };
}

it("counts the time a run waited for a worker from when it was due, not from its enqueue", async () => {
  const database = join(tempDir(), "queue-wait.db");
  const producer = createEngine({ database, workflows: [wf], worker: false, scheduler: false, captureConsole: false });
  engines.push(producer);
  await producer.start();
  const waiting = [];
  for (let n = 0; n < 3; n++) waiting.push(await producer.enqueueRun("queued", { n }));
  // Created now, due in 1.5 s: the worker below is running by then and starts it at once.
  const delayed = await producer.enqueueRun("queued", { n: 9 }, { runAt: Date.now() + 1_500 });
  await delay(1_200);

  const worker = createEngine({ database, workflows: [wf], scheduler: false, captureConsole: false });
  engines.push(worker);
  await worker.start();
  for (const h of [...waiting, delayed]) await h.result();

  const wait = await histogram(worker, "sluice_run_queue_wait_seconds", "queued");
  const claim = await histogram(worker, "sluice_run_claim_to_start_seconds", "queued");
  expect(wait.count).toBe(4);
  // The three runs due at their enqueue waited at least 1.2 s; the delayed one, due later, did not.
  expect(wait.bucket(1)).toBe(1);
  expect(wait.bucket(60)).toBe(4);
  // Claim → start is only the worker's own part: well under a second for every run.
  expect(claim.count).toBe(4);
  expect(claim.bucket(1)).toBe(4);
});
