/** Runs one cold measurement in a child process (see `child.ts`) and returns what it printed. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { Measurement, Workload } from "./workloads.js";

const CHILD = join(import.meta.dirname, "child.js");

/** Spawns `child.js` for workload `w` on `database` (scratch files in `dir`); rejects on a non-zero exit. */
export function measureInChild(w: Workload, dir: string, database: string): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, w, dir, database], {
      // A fixed key: a Postgres engine would otherwise write `.sluice/secret.key` in the working directory.
      env: { ...process.env, SLUICE_SECRET_KEY: "sluice-bench-secret-key-0123456789" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err = (err + d).slice(-4000)));
    child.on("error", reject);
    child.on("close", (code) => {
      const line = out.split("\n").find((l) => l.startsWith("RESULT "));
      if (code === 0 && line) resolve(JSON.parse(line.slice(7)) as Measurement);
      else reject(new Error(`cold ${w} on ${database} exited with ${code}: ${err || out}`));
    });
  });
}
