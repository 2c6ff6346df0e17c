/**
 * `sluice pipeline backfill cancel` of a detached backfill that a separate `sluice server` runs on
 * Postgres: the partitions it stops are cancelled, not failed. They used to end `failed` with "Fix the
 * step, then run 2 step(s) again with: sluice pipeline resume …" (the plan of a partition whose step was
 * still waiting for a concurrency slot took the step's cancellation for a failure), so `backfill status`
 * showed a cancelled backfill full of failures and told the operator to fix code that never ran.
 */
import { describe, expect, it } from "vitest";
import { testDatabase } from "../helpers/postgres.js";
import { finished, spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";

const url = await testDatabase("bfcancel");

const PROJECT = {
  "f/daily/extract.ts": `// pipeline
// partitioned daily
import * as wmill from 'windmill-client';
export async function main(partition: string) {
  await new Promise((r) => setTimeout(r, 300));
  await wmill.writeS3File({ s3: \`daily/raw/\${partition}.json\` }, JSON.stringify({ day: partition }));
}
`,
  "f/daily/load.ts": `// pipeline
// on s3://daily/raw/{partition}.json
import * as wmill from 'windmill-client';
export async function main(partition: string) {
  await wmill.loadS3File({ s3: \`daily/raw/\${partition}.json\` });
}
`,
};

interface Status {
  status: string;
  counts: Record<string, number>;
  partitions: Array<{ partition: string; state: string; error: string | null }>;
}

describe("cancelling a backfill run by a sluice server on Postgres", () => {
  it("ends its unfinished partitions cancelled, none failed, and says nothing of fixing a step", async () => {
    const root = makeProject(PROJECT);
    const db = ["--db", url];
    const server = spawnSluice(["server", "--port", "0", ...db], root);
    await server.waitFor(/server \d+ ready/, 60_000);
    const started = await finished(
      spawnSluice(
        ["pipeline", "backfill", "f/daily", "--from-partition", "2026-03-01", "--to-partition", "2026-03-12"]
          .concat(["--concurrency", "1", "--detach"])
          .concat(db),
        root,
      ),
    );
    expect(started.code, started.err).toBe(0);
    const id = /^backfill (\S+) of /m.exec(started.out)![1]!;
    const status = async (): Promise<Status> => {
      // Exit 0 while it runs or once it succeeded, 1 once it failed or was cancelled.
      const r = await finished(spawnSluice(["pipeline", "backfill", "status", id, "--json", ...db], root));
      expect(r.err).toBe("");
      return JSON.parse(r.out) as Status;
    };
    await eventually(async () => (await status()).counts.succeeded! >= 1, 60_000, 200);

    const cancel = await finished(spawnSluice(["pipeline", "backfill", "cancel", id, ...db], root));
    expect(cancel.code, cancel.err).toBe(0);
    expect(cancel.out).toContain(`cancelled backfill ${id}`);

    // The plans of the stopped partitions settle after the cancel returns: wait until none is active.
    let st = await status();
    await eventually(async () => {
      st = await status();
      return st.partitions.every((p) => ["succeeded", "skipped", "failed", "cancelled"].includes(p.state));
    }, 30_000);
    expect(st.status).toBe("cancelled");
    expect(st.counts.failed, JSON.stringify(st.partitions.filter((p) => p.state === "failed"))).toBe(0);
    expect(st.counts.cancelled).toBeGreaterThan(0);
    expect(st.counts.succeeded! + st.counts.cancelled!).toBe(12);
    const text = await finished(spawnSluice(["pipeline", "backfill", "status", id, ...db], root));
    expect(text.code).toBe(1);
    expect(text.out).toMatch(/: cancelled, 12\/12 partition\(s\) finished/);
    expect(text.out).not.toMatch(/Fix the step/);

    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 150_000);
});
