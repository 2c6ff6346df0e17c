/**
 * A `// partitioned` materialization that reads a partitioned lake table with `*` brings that
 * table's `_partition` along, and Sluice adds its own. When the table's columns are known before
 * a run (a `// partitioned` SQL script of the pipeline writes it) the pipeline load says so
 * (test/pipeline/load-diagnostics.test.ts); here the table is written from code, whose columns
 * are only known once it ran, so the write is refused naming the reserved column and the fix
 * (`* EXCLUDE (_partition)`), where it said "the SELECT returns two columns named _partition;
 * give each output column its own name" (the script's SELECT names only one).
 * Real binary: `sluice pipeline run` of the chain, then the fixed script.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { finished, spawnSluice } from "../helpers/processes.js";

const ORDERS = `// pipeline
// partitioned daily
import * as wmill from "windmill-client";

export async function main(partition: string) {
  const rows = [1, 2, 3].map((i) => ({ order_id: \`\${partition}-\${i}\`, amount: i * 2.5 }));
  return await wmill.ducklake().upsertPartition("orders", rows);
}
`;
const big = (select: string) => `-- pipeline
-- on ducklake://main/orders
-- partitioned daily
-- materialize ducklake://main/big_orders
ATTACH 'ducklake://main' AS dl;
${select} FROM dl.orders WHERE _partition = '{partition}' AND amount > 3
`;

describe("a partitioned materialization reading a partitioned table with *", { timeout: 120_000 }, () => {
  const root = makeProject({ "f/x/orders.ts": ORDERS, "f/x/big.sql": big("SELECT *") });
  const run = () =>
    finished(spawnSluice(["pipeline", "run", "f/x", "--from", "orders", "--partition", "2026-05-01"], root));

  it("is refused naming the reserved column and EXCLUDE, then runs once the script leaves it out", async () => {
    const failed = await run();
    expect(failed.code).toBe(1);
    const out = failed.out + failed.err;
    expect(out).toContain(
      "the SELECT produces a column named _partition, which Sluice adds itself to every slice of a -- partitioned materialization",
    );
    expect(out).toContain("SELECT * EXCLUDE (_partition)");
    expect(out).not.toContain("two columns named");
    writeFileSync(join(root, "f/x/big.sql"), big("SELECT * EXCLUDE (_partition)"));
    const ok = await run();
    expect(ok.code, ok.out + ok.err).toBe(0);
    expect(ok.out).toMatch(/✓ succeeded\s+f\/x\/big\.sql/);
  });
});
