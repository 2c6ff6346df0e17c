/**
 * A claiming process for the retention bench: `node dist-bench/cold/claim-probe.js <database>`.
 * Claims in a loop (limit 10, as an idle worker polls) and times every claim; prints `READY`
 * after the first, and on SIGTERM one line `RESULT <json>`: claims made, and every claim that
 * took 5 ms or more as [wall-clock start ms, duration ms].
 */
import { createEngine } from "../../dist/index.js";

const [database] = process.argv.slice(2);
if (!database) {
  console.error("usage: claim-probe.js <database file or postgres:// URL>");
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
console.log(`RESULT ${JSON.stringify({ claims, slow })}`);
await engine.stop();
process.exit(0);
