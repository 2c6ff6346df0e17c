/**
 * One cold measurement in a fresh process: `node dist-bench/cold/child.js <workload> <dir> <database>`.
 * Prints one line `RESULT <json>` (a {@link Measurement}) and exits; any failure exits non-zero.
 */
import { measure, WORKLOADS, type Workload } from "./workloads.js";

const [w, dir, database] = process.argv.slice(2);
if (!WORKLOADS.includes(w as Workload) || !dir || !database) {
  console.error("usage: child.js W1|W2|W3|W4 <scratch dir> <database file or postgres:// URL>");
  process.exit(2);
}
const result = await measure(w as Workload, dir, database);
console.log(`RESULT ${JSON.stringify(result)}`);
process.exit(0);
