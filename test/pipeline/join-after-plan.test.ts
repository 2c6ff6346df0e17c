/**
 * A `trigger all` join counts every write of its partition-bearing inputs, including one made by
 * a plan (`sluice pipeline run`, a backfill), which fires nothing itself: seed 001's join runs
 * "when every partition-bearing input has been materialized for that partition". A plan writes
 * the day's payments; the day's orders, written later by a run that cascades, complete the join.
 * (The join used to wait for payments again, though the file was there.) Real binaries: a
 * `sluice dev` and, from a second shell, `sluice pipeline run`, `sluice enqueue --wait`, `sluice runs`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { finished, type SluiceProcess, spawnSluice } from "../helpers/processes.js";

const writer = (name: string) => `// pipeline
// partitioned daily
import * as wmill from 'windmill-client';

export async function main(partition: string) {
  await wmill.writeS3File(\`sales/${name}/\${partition}.json\`, JSON.stringify([{ id: 1, ${name}: partition }]));
}
`;

const FILES = {
  "f/sales/orders.ts": writer("orders"),
  "f/sales/payments.ts": writer("payments"),
  "f/sales/joined.ts": `// pipeline
// on s3://sales/orders/{partition}.json
// on s3://sales/payments/{partition}.json
// trigger all
// partitioned daily
export async function main(partition: string) {
  return { joined: partition };
}
`,
};

describe("a trigger-all join after a plan wrote one of its inputs", { timeout: 120_000 }, () => {
  let root: string;
  let dev: SluiceProcess;
  beforeAll(async () => {
    root = makeProject(FILES);
    dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root, {}, { shared: true });
    await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
  }, 60_000);
  afterAll(async () => {
    dev?.proc.kill("SIGTERM");
    await dev?.exited;
  });

  it("runs once the cascade writes the other input for that day", async () => {
    const plan = await finished(
      spawnSluice(
        ["pipeline", "run", "f/sales", "--from", "payments", "--to", "payments", "--partition", "2026-05-01"],
        root,
      ),
    );
    expect(plan.code, plan.out + plan.err).toBe(0);
    const orders = await finished(
      spawnSluice(["enqueue", "f/sales/orders", '{"partition": "2026-05-01"}', "--wait", "--timeout", "30s"], root),
    );
    expect(orders.code, orders.out + orders.err).toBe(0);
    let runs: Array<{ status: string; workflow: string }> = [];
    for (let i = 0; i < 50 && !runs.some((r) => r.status === "succeeded"); i++) {
      await new Promise((r) => setTimeout(r, 200));
      const r = await finished(spawnSluice(["runs", "--workflow", "f/sales/joined", "--json"], root));
      expect(r.code, r.err).toBe(0);
      runs = JSON.parse(r.out) as typeof runs;
    }
    expect(runs.map((r) => r.status)).toEqual(["succeeded"]);
  });
});
