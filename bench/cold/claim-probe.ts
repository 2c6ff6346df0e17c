/**
 * A claiming process for the retention bench: `node dist-bench/cold/claim-probe.js <database> <out.json>`.
 * Claims in a loop (limit 10, as an idle worker polls) and times every claim; prints `READY`
 * after the first, and on SIGTERM writes to `out.json` the claims made and every claim that
 * took 5 ms or more as [wall-clock start ms, duration ms] (a file: a long line on a pipe is
 * cut short by the exit).
 */
import { writeFileSync } from "node:fs";
import { createEngine } from "../../dist/index.js";

const [database, out] = process.argv.slice(2);
if (!database || !out) {
  console.error("usage: claim-probe.js <database file or postgres:// URL> <result file>");
  process.exit(2);
}
const engine = createEngine({ database, worker: false, scheduler: false, captureConsole: false });
await engine.start();
let stopping = false;
let claims = 0;
const slow: Array<[number, number]> = [];
process.once("SIGTERM", () => (stopping = true));
while (!stopping) {
  const at = Date.now();
  const t = performance.now();
  await engine.store.claim({ workerId: "claim-probe", limit: 10, leaseMs: 30_000, workflows: ["bench-noop"] });
  const ms = performance.now() - t;
  if (ms >= 5) slow.push([at, ms]);
  if (claims++ === 0) console.log("READY");
  await new Promise((r) => setTimeout(r, 1));
}
writeFileSync(out, JSON.stringify({ claims, slow }));
await engine.stop();
process.exit(0);
