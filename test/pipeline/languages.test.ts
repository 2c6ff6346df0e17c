/**
 * Polyglot pipelines: a Python producer (subprocess, Sluice's `wmill` module over the
 * bridge), a DuckDB SQL transform (`-- $name (type)` arguments, `{partition}`, s3:// and
 * datatable:// mapped to files) and a Bash consumer (the `wmill` command), cascading with
 * one partition; data tables from TypeScript and Python.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeValue } from "../../src/core/serde.js";
import { startPipelines, type PipelineProject } from "./harness.js";

const EXTRACT_PY = `# pipeline
# partitioned daily
import json
import wmill


def main(partition: str, rows: int = 3):
    data = [{"n": i + 1} for i in range(rows)]
    wmill.write_s3_file({"s3": f"poly/raw/{partition}.json"}, json.dumps(data))
    wmill.set_resource("f/poly/last_extract", {"partition": partition, "rows": rows})
    print(f"extracted {rows} rows for {partition}")
    return {"rows": rows}
`;

const TRANSFORM_SQL = `-- pipeline
-- on s3://poly/raw/{partition}.json
-- $factor (int) = 10
ATTACH 'datatable://main' AS dt;
CREATE TABLE IF NOT EXISTS dt.scaled (day VARCHAR, m BIGINT);
DELETE FROM dt.scaled WHERE day = '{partition}';
INSERT INTO dt.scaled SELECT '{partition}', n * $factor FROM read_json('s3://poly/raw/{partition}.json');
COPY (SELECT m FROM dt.scaled WHERE day = '{partition}' ORDER BY m) TO 's3://poly/scaled/{partition}.json' (FORMAT json);
SELECT count(*) AS scaled, sum(m) AS total FROM dt.scaled WHERE day = '{partition}';
`;

const LOAD_SH = `# pipeline
# on s3://poly/scaled/{partition}.json
partition="$1"
lines=$(wmill load-s3 "poly/scaled/$partition.json" | wc -l | tr -d ' ')
echo "loaded $lines lines for $partition"
echo "$partition: $lines" | wmill write-volume reports "daily/$partition.txt"
echo "{\\"lines\\": $lines}"
`;

const QUERY_TS = `// pipeline
import * as wmill from 'windmill-client';

export async function main(day: string) {
	const sql = wmill.datatable();
	const totals = await sql\`SELECT sum(m) AS total, count(*) AS n FROM scaled WHERE day = \${day}\`.fetchOne();
	await sql\`CREATE TABLE IF NOT EXISTS audit (day VARCHAR, total BIGINT)\`;
	await sql\`INSERT INTO audit VALUES (\${day}, \${totals.total})\`;
	return totals;
}
`;

const QUERY_PY = `# pipeline
import wmill


def main(day: str):
    rows = wmill.datatable().query("SELECT day, total FROM audit WHERE day = $1", day).fetch()
    cfg = wmill.get_resource("f/poly/last_extract")
    return {"audit": rows, "resource": cfg, "partition": wmill.get_partition()}
`;

describe("Python, DuckDB SQL and Bash pipeline scripts", () => {
  let p: PipelineProject;
  beforeAll(async () => {
    p = await startPipelines({
      "f/poly/extract.py": EXTRACT_PY,
      "f/poly/transform.sql": TRANSFORM_SQL,
      "f/poly/load.sh": LOAD_SH,
      "f/poly/query.ts": QUERY_TS,
      "f/poly/audit.py": QUERY_PY,
    });
  });
  afterAll(async () => p?.close());

  it("detects the outputs of all three languages in the lineage graph", () => {
    const f = p.pipelines.catalog().folder("f/poly")!;
    expect(f.ok).toBe(true);
    const writes = (path: string) =>
      f.members.find((m) => m.path === path)!.analyzed.assets.writes.map((w) => w.asset.uri);
    expect(writes("f/poly/extract.py")).toEqual(["s3://poly/raw/{partition}.json", "$res:f/poly/last_extract"]);
    expect(writes("f/poly/transform.sql")).toEqual(["datatable://main/scaled", "s3://poly/scaled/{partition}.json"]);
  });

  it("cascades Python → SQL → Bash with one partition", async () => {
    const h = await p.pipelines.runScript("f/poly/extract", { rows: 4 }, { partition: "2026-05-16" });
    expect(await h.result({ timeoutMs: 20_000 })).toEqual({ rows: 4 });
    await p.settle({ timeoutMs: 30_000 });
    const [sql] = await p.runsOf("f/poly/transform");
    expect(sql?.status, JSON.stringify(sql?.error)).toBe("succeeded");
    expect(decodeValue(sql!.result)).toEqual([{ scaled: 4, total: 100 }]);
    const [sh] = await p.runsOf("f/poly/load");
    expect(sh?.status, JSON.stringify(sh?.error)).toBe("succeeded");
    expect(decodeValue(sh!.result)).toEqual({ lines: 4 });
    const assets = await p.pipelines.assets();
    expect(new TextDecoder().decode(await assets.volumes.read("reports", "daily/2026-05-16.txt"))).toBe(
      "2026-05-16: 4\n",
    );
    expect(await assets.resources.get("f/poly/last_extract")).toEqual({ partition: "2026-05-16", rows: 4 });
    const stepTargets = async (id: string) =>
      (await p.store.getSteps(id))
        .filter((s) => s.kind === "asset")
        .map((s) => s.target)
        .sort();
    expect(await stepTargets(h.id)).toEqual(["$res:f/poly/last_extract", "s3://poly/raw/2026-05-16.json"]);
    expect(await stepTargets(sh!.id)).toEqual(["volume://reports/daily/2026-05-16.txt"]);
    const logs = (await p.store.getLogs(h.id)).map((l) => l.message);
    expect(logs).toContain("extracted 4 rows for 2026-05-16");
  });

  it("queries data tables from TypeScript and Python with bound parameters", async () => {
    const ts = await p.pipelines.runScript("f/poly/query", { day: "2026-05-16" });
    expect(await ts.result({ timeoutMs: 15_000 })).toEqual({ total: 100, n: 4 });
    expect((await p.store.getSteps(ts.id)).filter((s) => s.kind === "asset").map((s) => s.target)).toEqual([
      "datatable://main/audit",
    ]);
    const py = await p.pipelines.runScript("f/poly/audit", { day: "2026-05-16" }, { partition: "x-1" });
    expect(await py.result({ timeoutMs: 15_000 })).toEqual({
      audit: [{ day: "2026-05-16", total: 100 }],
      resource: { partition: "2026-05-16", rows: 4 },
      partition: "x-1",
    });
    await p.settle();
  });

  it("fails a Python run with the script's own error and exit code", async () => {
    // A value of the wrong type for `rows: int` is refused at enqueue (nothing runs); null passes and fails in main.
    await expect(
      p.pipelines.runScript("f/poly/extract", { rows: "x" }, { partition: "2026-05-17", cascade: false }),
    ).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
      message: 'parameter "rows" of f/poly/extract is int, so it takes a whole number: got "x" (a string)',
    });
    const bad = await p.pipelines.runScript(
      "f/poly/extract",
      { rows: null },
      { partition: "2026-05-17", cascade: false },
    );
    await expect(bad.result({ timeoutMs: 15_000 })).rejects.toThrow(
      /f\/poly\/extract\.py exited with code 1: TypeError/,
    );
  });
});
