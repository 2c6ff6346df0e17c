/**
 * An S3 object given as a plain string is its key, in Python (`write_s3_file(f"raw/{partition}.json", …)`)
 * and TypeScript (`writeS3File(\`raw/${partition}.json\`, …)`), as both SDKs write it: the static
 * graph has the write (it said "built at run time", so the edge was missing, a `trigger all` join
 * on it warned JOIN_INPUT_EXTERNAL and `pipeline run --from` the writer did not run its readers).
 * Real binary: `sluice pipeline graph --json` and `sluice pipeline run --from … --partition …`.
 */
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { finished, spawnSluice } from "../helpers/processes.js";

const FILES = {
  "f/sales/orders.py": `# pipeline
# partitioned daily
import json
import wmill


def main(partition: str):
    wmill.write_s3_file(f"sales/orders/{partition}.json", json.dumps([{"id": 1, "amount": 2.5}]))
`,
  "f/sales/payments.ts": `// pipeline
// partitioned daily
import * as wmill from 'windmill-client';

export async function main(partition: string) {
  await wmill.writeS3File(\`sales/payments/\${partition}.json\`, JSON.stringify([{ id: 1, paid: true }]));
}
`,
  "f/sales/joined.sql": `-- pipeline
-- on s3://sales/orders/{partition}.json
-- on s3://sales/payments/{partition}.json
-- trigger all
-- partitioned daily
SELECT o.id, o.amount, p.paid
FROM read_json('s3://sales/orders/{partition}.json') o
JOIN read_json('s3://sales/payments/{partition}.json') p USING (id)
`,
};

describe("a plain string S3 key in code", { timeout: 120_000 }, () => {
  const root = makeProject(FILES);

  it("is the script's output in sluice pipeline graph --json (Python f-string and TypeScript template)", async () => {
    const r = await finished(spawnSluice(["pipeline", "graph", "f/sales", "--json"], root));
    expect(r.code, r.err).toBe(0);
    const graph = JSON.parse(r.out) as {
      scripts: Array<{ path: string; outputs: Array<{ asset: string }> }>;
      diagnostics: Array<{ code: string }>;
    };
    const outputs = Object.fromEntries(graph.scripts.map((s) => [s.path, s.outputs.map((o) => o.asset)]));
    expect(outputs["f/sales/orders.py"]).toEqual(["s3://sales/orders/{partition}.json"]);
    expect(outputs["f/sales/payments.ts"]).toEqual(["s3://sales/payments/{partition}.json"]);
    expect(graph.diagnostics.map((d) => d.code)).toEqual([]);
  });

  it("sluice pipeline run --from the writer runs the join that reads it", async () => {
    const first = await finished(
      spawnSluice(
        ["pipeline", "run", "f/sales", "--from", "payments", "--partition", "2026-05-01", "--to", "payments"],
        root,
      ),
    );
    expect(first.code, first.out + first.err).toBe(0);
    const r = await finished(
      spawnSluice(["pipeline", "run", "f/sales", "--from", "orders", "--partition", "2026-05-01"], root),
    );
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/✓ succeeded\s+f\/sales\/orders\.py/);
    expect(r.out).toMatch(/✓ succeeded\s+f\/sales\/joined\.sql/);
  });
});
