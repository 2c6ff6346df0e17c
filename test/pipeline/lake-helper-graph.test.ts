/**
 * Managed writes from code (`ducklake(name).upsertPartition/appendPartition`, Python's
 * `upsert_partition/append_partition`) are the script's outputs in the static graph (seed 001:
 * the helpers "give the same managed, idempotent write from arbitrary code"), found by each
 * language's own parser: the real `sluice pipeline graph --json` shows the write edges, and
 * `sluice pipeline run --from <writer>` runs the SQL script that reads the table. A call inside
 * a string or a comment is no write.
 */
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { finished, spawnSluice } from "../helpers/processes.js";

const FILES = {
  "f/lk/produce.ts": `// pipeline
import * as wmill from 'windmill-client';

const note = "wmill.ducklake('shop').upsertPartition('not_a_table', [])";
// wmill.ducklake("shop").appendPartition("commented", []);

export async function main() {
  const lake = wmill.ducklake("shop");
  return await lake.upsertPartition("orders", [{ id: 1, amount: 3 }, { id: 2, amount: 4 }], { key: "id" });
}
`,
  "f/lk/produce_py.py": `# pipeline
import wmill

def main():
    return wmill.ducklake("shop").append_partition(
        "events", [{"id": 1}, {"id": 2}, {"id": 3}]
    )
`,
  "f/lk/totals.sql": `-- pipeline
-- on ducklake://shop/orders
-- materialize ducklake://shop/totals
ATTACH 'ducklake://shop' AS dl;
SELECT sum(amount) AS total FROM dl.orders
`,
  "f/lk/event_count.sql": `-- pipeline
-- on ducklake://shop/events
-- materialize ducklake://shop/event_count
ATTACH 'ducklake://shop' AS dl;
SELECT count(*) AS n FROM dl.events
`,
};

interface GraphJson {
  ok: boolean;
  scripts: Array<{ path: string; outputs: Array<{ asset: string; via: string[]; line: number }> }>;
  edges: Array<{ kind: string; from: string; to: string }>;
  diagnostics: Array<{ code: string; file?: string }>;
}

describe("ducklake() helper writes in the static graph", { timeout: 120_000 }, () => {
  const root = makeProject(FILES);

  it("sluice pipeline graph --json: TypeScript and Python helper writes are outputs with write edges", async () => {
    const r = await finished(spawnSluice(["pipeline", "graph", "f/lk", "--json"], root));
    expect(r.code, r.err).toBe(0);
    const graph = JSON.parse(r.out) as GraphJson;
    const outputs = Object.fromEntries(graph.scripts.map((s) => [s.path, s.outputs]));
    expect(outputs["f/lk/produce.ts"]).toEqual([
      { asset: "ducklake://shop/orders", via: ["ducklake().upsertPartition"], line: 9 },
    ]);
    expect(outputs["f/lk/produce_py.py"]).toEqual([
      { asset: "ducklake://shop/events", via: ["ducklake().append_partition"], line: 5 },
    ]);
    const writes = graph.edges.filter((e) => e.kind === "writes").map((e) => `${e.from} -> ${e.to}`);
    expect(writes).toContain("script:f/lk/produce.ts -> asset:ducklake://shop/orders");
    expect(writes).toContain("script:f/lk/produce_py.py -> asset:ducklake://shop/events");
    // the lake is no longer an asset of unknown access: its tables are named
    expect(graph.diagnostics.map((d) => d.code)).not.toContain("DETECT_ACCESS_UNKNOWN");
  });

  it("without python3 the Python script's lake writes are missing, and the graph says why", async () => {
    const r = await finished(
      spawnSluice(["pipeline", "graph", "f/lk", "--json"], root, { SLUICE_PYTHON: "/nonexistent/python3" }),
    );
    expect(r.code, r.err).toBe(0);
    const graph = JSON.parse(r.out) as GraphJson;
    expect(graph.scripts.find((s) => s.path === "f/lk/produce_py.py")?.outputs).toEqual([]);
    expect(graph.diagnostics).toContainEqual(
      expect.objectContaining({ code: "DETECT_PYTHON_UNAVAILABLE", file: "f/lk/produce_py.py" }),
    );
  });

  it("sluice pipeline run --from <writer> runs the SQL script that reads the table it wrote", async () => {
    const ts = await finished(spawnSluice(["pipeline", "run", "f/lk", "--from", "produce"], root));
    expect(ts.code, ts.out + ts.err).toBe(0);
    expect(ts.out).toMatch(/✓ succeeded\s+f\/lk\/produce\.ts/);
    expect(ts.out).toMatch(/✓ succeeded\s+f\/lk\/totals\.sql/);
    const py = await finished(spawnSluice(["pipeline", "run", "f/lk", "--from", "produce_py"], root));
    expect(py.code, py.out + py.err).toBe(0);
    expect(py.out).toMatch(/✓ succeeded\s+f\/lk\/event_count\.sql/);
    const tables = await finished(spawnSluice(["lake", "tables", "shop", "--json"], root));
    expect(tables.code, tables.err).toBe(0);
    expect(tables.out).toContain("totals");
    expect(tables.out).toContain("event_count");
  });
});
