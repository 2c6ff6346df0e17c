/**
 * A worker process for the timer bench: `node dist-bench/cold/timer-worker.js <database> <concurrency>`.
 * Runs an engine with an embedded worker (no scheduler) for the one-step bench workflow, prints
 * `READY` once claiming, and drains and exits on SIGTERM, printing its CPU time after `READY` (`CPU <ms>`).
 */
import { createEngine, defineWorkflow } from "../../dist/index.js";

const [database, concurrency] = process.argv.slice(2);
if (!database || !Number(concurrency)) {
  console.error("usage: timer-worker.js <database file or postgres:// URL> <concurrency>");
  process.exit(2);
}
// The step's value is the wall clock when its body ran: the bench's "body start", on this process's clock.
const timer = defineWorkflow("bench-timer", { handler: async (_p, ctx) => ctx.run("only", () => Date.now()) });
const engine = createEngine({
  database,
  workflows: [timer],
  scheduler: false,
  captureConsole: false,
  worker: { concurrency: Number(concurrency) },
});
await engine.start();
const ready = process.cpuUsage();
console.log("READY");
// The process's CPU time, printed at exit: what the bench reports beside the spread.
process.once(
  "SIGTERM",
  () =>
    void engine.stop().then(() => {
      const cpu = process.cpuUsage(ready);
      console.log(`CPU ${Math.round((cpu.user + cpu.system) / 1000)}`);
      process.exit(0);
    }),
);
