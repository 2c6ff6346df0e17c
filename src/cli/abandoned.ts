/** The line `sluice worker` and `sluice dev` print when their drain timeout passed with runs still running. */
import type { AbandonedClaims } from "../worker/worker.js";

/** What became of the runs a worker abandoned when its drain timeout (`drainTimeout`, as given) passed. */
export function describeAbandoned(abandoned: AbandonedClaims, drainTimeout: string, leaseMs: number): string {
  const head = `drain timeout (${drainTimeout}) passed with ${abandoned.ids.length} run(s) still running: abandoned ${abandoned.ids.join(", ")}`;
  if (!abandoned.released)
    return `${head}; another worker retries them once their leases expire (within ${leaseMs} ms)\n`;
  const failed = abandoned.runs.filter((r) => r.outcome === "failed").length;
  const retried = abandoned.runs.length - failed;
  return (
    `${head}; their leases were released: ${retried} run(s) get another attempt from the next worker` +
    `${failed ? `, ${failed} failed (it was their last attempt)` : ""}\n`
  );
}
