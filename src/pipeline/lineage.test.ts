import { describe, expect, it } from "vitest";
import { analyzePipeline } from "./analyze.js";
import { cascadeEdges, scriptName } from "./lineage-graph.js";
import { effectiveSchemes } from "./lineage-schemes.js";

const file = (path: string, ...lines: string[]) => ({ path, source: lines.join("\n") });
const diag = (p: ReturnType<typeof analyzePipeline>) =>
  p.diagnostics.map((d) => `${d.severity}:${d.script}:${d.line}:${d.code}`);

const quickstart = [
  file(
    "f/demo/ingest.ts",
    "// pipeline",
    "import * as wmill from 'windmill-client';",
    "export async function main() {",
    "  await wmill.writeS3File({ s3: 'demo/raw.json' }, '[]');",
    "}",
  ),
  file(
    "f/demo/transform.ts",
    "// pipeline",
    "// on s3://demo/raw.json",
    "import * as wmill from 'windmill-client';",
    "export async function main() {",
    "  const rows = JSON.parse(await wmill.loadS3File({ s3: 'demo/raw.json' }));",
    "  await wmill.writeS3File({ s3: 'demo/sum.json' }, '{}');",
    "}",
  ),
];

describe("buildLineageGraph", () => {
  it("wires the seed quickstart: ingest → s3://demo/raw.json → transform → s3://demo/sum.json", () => {
    const { graph, ok, diagnostics } = analyzePipeline(quickstart);
    expect(ok).toBe(true);
    expect(diagnostics).toEqual([]);
    expect(graph.scripts.map((s) => [s.id, s.name])).toEqual([
      ["script:f/demo/ingest.ts", "ingest"],
      ["script:f/demo/transform.ts", "transform"],
    ]);
    expect(graph.assets.map((a) => a.id)).toEqual(["asset:s3://demo/raw.json", "asset:s3://demo/sum.json"]);
    expect(graph.edges.map((e) => `${e.from} -${e.kind}-> ${e.to}`)).toEqual([
      "script:f/demo/ingest.ts -writes-> asset:s3://demo/raw.json",
      "asset:s3://demo/raw.json -triggers-> script:f/demo/transform.ts",
      "script:f/demo/transform.ts -writes-> asset:s3://demo/sum.json",
    ]);
    expect(cascadeEdges(graph)).toEqual([{ from: "script:f/demo/ingest.ts", to: "script:f/demo/transform.ts" }]);
  });

  it("leaves out scripts without // pipeline, and lists them", () => {
    const { graph } = analyzePipeline([...quickstart, file("f/demo/helper.ts", "export const x = 1;")]);
    expect(graph.excluded).toEqual(["f/demo/helper.ts"]);
    expect(graph.scripts).toHaveLength(2);
  });

  it("adds native trigger placeholder nodes and debounce on trigger edges", () => {
    const { graph } = analyzePipeline([
      file(
        "f/a/step.ts",
        "// pipeline",
        "// on schedule",
        "// on kafka",
        "// debounce 1m",
        "// on s3://x/y",
        "// on s3://x/z debounce=30s",
      ),
    ]);
    expect(graph.triggers.map((t) => t.id)).toEqual(["trigger:schedule:f/a/step.ts", "trigger:kafka:f/a/step.ts"]);
    expect(graph.edges.filter((e) => e.kind === "triggers").map((e) => [e.from, e.debounceSeconds, e.line])).toEqual([
      ["asset:s3://x/y", 60, 5],
      ["asset:s3://x/z", 30, 6],
    ]);
    expect(graph.edges.filter((e) => e.kind === "fires")).toHaveLength(2);
  });

  it("detected reads without // on are lineage-only edges that never fire", () => {
    const { graph } = analyzePipeline([
      file("f/a/r.ts", "// pipeline", "await wmill.loadS3File({ s3: 'ref/dim.json' })"),
    ]);
    expect(graph.edges).toEqual([{ kind: "reads", from: "asset:s3://ref/dim.json", to: "script:f/a/r.ts" }]);
    expect(cascadeEdges(graph)).toEqual([]);
  });

  it("attaches a concrete write to a declared {partition} input", () => {
    const { graph } = analyzePipeline([
      file("f/a/p.ts", "// pipeline", "// asset write s3://lake/2026-05-16/x.parquet"),
      file("f/a/c.ts", "// pipeline", "// on s3://lake/{partition}/x.parquet"),
    ]);
    expect(graph.edges.find((e) => e.kind === "writes")).toEqual({
      kind: "writes",
      from: "script:f/a/p.ts",
      to: "asset:s3://lake/{partition}/x.parquet",
      written: "s3://lake/2026-05-16/x.parquet",
    });
    expect(cascadeEdges(graph)).toHaveLength(1);
  });

  it("scriptName drops folder and extension", () => {
    expect(scriptName("f/demo/ingest.ts")).toBe("ingest");
    expect(scriptName("f/demo/ingest")).toBe("ingest");
    expect(scriptName("ingest.py")).toBe("ingest");
  });
});

describe("effective partition schemes", () => {
  it("a step without // partitioned inherits its upstream scheme", () => {
    const { graph } = analyzePipeline([
      file("f/a/raw.ts", "// pipeline", "// partitioned hourly", "// asset write s3://l/{partition}/raw"),
      file("f/a/mid.ts", "// pipeline", "// on s3://l/{partition}/raw", "// asset write s3://l/{partition}/mid"),
      file("f/a/end.ts", "// pipeline", "// on s3://l/{partition}/mid"),
    ]);
    const schemes = effectiveSchemes(graph);
    expect(schemes.get("script:f/a/raw.ts")).toMatchObject({ source: "own", spec: { kind: "hourly" } });
    expect(schemes.get("script:f/a/mid.ts")).toMatchObject({ source: "inherited", spec: { kind: "hourly" } });
    expect(schemes.get("script:f/a/end.ts")).toMatchObject({ source: "inherited", spec: { kind: "hourly" } });
  });
});

describe("validatePipeline", () => {
  const join = (...extra: ReturnType<typeof file>[]) =>
    analyzePipeline([
      file(
        "f/j/events.ts",
        "// pipeline",
        "// partitioned daily",
        "// asset write s3://lake/raw/events/{partition}/events.parquet",
      ),
      ...extra,
      file(
        "f/j/enrich.ts",
        "// pipeline",
        "// on s3://lake/raw/events/{partition}/events.parquet",
        "// on s3://lake/raw/sessions/{partition}/sessions.parquet",
        "// on s3://lake/dim/customers/current.parquet",
        "// trigger all",
        "// partitioned daily",
      ),
    ]);

  it("accepts a join whose partition-bearing inputs share one scheme (seed example)", () => {
    const p = join(
      file(
        "f/j/sessions.ts",
        "// pipeline",
        "// partitioned daily",
        "// asset write s3://lake/raw/sessions/{partition}/sessions.parquet",
      ),
      file(
        "f/j/customers.ts",
        "// pipeline",
        "// on schedule",
        "// asset write s3://lake/dim/customers/current.parquet",
      ),
    );
    expect(diag(p)).toEqual([]);
    expect(p.ok).toBe(true);
  });

  it("rejects a `trigger all` join mixing daily and hourly inputs (the seed's silent never-fire)", () => {
    const p = join(
      file(
        "f/j/sessions.ts",
        "// pipeline",
        "// partitioned hourly",
        "// asset write s3://lake/raw/sessions/{partition}/sessions.parquet",
      ),
    );
    expect(p.ok).toBe(false);
    expect(diag(p)).toContain("error:f/j/enrich.ts:5:JOIN_SCHEME_MISMATCH");
    const message = p.diagnostics.find((d) => d.code === "JOIN_SCHEME_MISMATCH")?.message ?? "";
    expect(message).toContain("daily");
    expect(message).toContain("hourly");
    expect(message).toContain("same scheme");
  });

  it("rejects a join whose inputs differ only in tz or format", () => {
    const tz = join(
      file(
        "f/j/sessions.ts",
        "// pipeline",
        '// partitioned daily tz="Europe/Paris"',
        "// asset write s3://lake/raw/sessions/{partition}/sessions.parquet",
      ),
    );
    expect(diag(tz)).toContain("error:f/j/enrich.ts:5:JOIN_SCHEME_MISMATCH");
    const fmt = join(
      file(
        "f/j/sessions.ts",
        "// pipeline",
        '// partitioned daily format="%Y/%m/%d"',
        "// asset write s3://lake/raw/sessions/{partition}/sessions.parquet",
      ),
    );
    expect(diag(fmt)).toContain("error:f/j/enrich.ts:5:JOIN_SCHEME_MISMATCH");
  });

  it("detects a mismatch inherited through an unpartitioned intermediate step", () => {
    const p = join(
      file("f/j/raw_sessions.ts", "// pipeline", "// partitioned hourly", "// asset write s3://lake/pre/{partition}/s"),
      file(
        "f/j/sessions.ts",
        "// pipeline",
        "// on s3://lake/pre/{partition}/s",
        "// asset write s3://lake/raw/sessions/{partition}/sessions.parquet",
      ),
    );
    expect(diag(p)).toContain("error:f/j/enrich.ts:5:JOIN_SCHEME_MISMATCH");
  });

  it("rejects a partition-bearing join input written only by unpartitioned scripts", () => {
    const p = join(
      file("f/j/sessions.ts", "// pipeline", "// asset write s3://lake/raw/sessions/{partition}/sessions.parquet"),
    );
    expect(diag(p)).toContain("error:f/j/enrich.ts:3:JOIN_INPUT_UNPARTITIONED");
  });

  it("warns when a join input has no writer in the pipeline", () => {
    const p = join();
    expect(diag(p)).toEqual(["warning:f/j/enrich.ts:3:JOIN_INPUT_EXTERNAL"]);
    expect(p.ok).toBe(true);
  });

  it("warns when a step's own scheme differs from the value its upstream passes down", () => {
    const p = analyzePipeline([
      file("f/s/a.ts", "// pipeline", "// partitioned daily", "// asset write s3://x/{partition}/a"),
      file("f/s/b.ts", "// pipeline", "// on s3://x/{partition}/a", "// partitioned hourly"),
    ]);
    expect(diag(p)).toEqual(["warning:f/s/b.ts:3:PARTITION_SCHEME_DIFFERS_FROM_UPSTREAM"]);
  });

  it("warns when a script writes a {partition} path but never receives a partition", () => {
    const p = analyzePipeline([file("f/s/a.ts", "// pipeline", "// asset write s3://x/{partition}/a")]);
    expect(diag(p)).toEqual(["warning:f/s/a.ts:0:WRITES_PARTITION_WITHOUT_SCHEME"]);
  });

  it("warns about cycles (depth-capped at run time) and ambiguous names", () => {
    const p = analyzePipeline([
      file("f/c/a.ts", "// pipeline", "// on s3://c/b", "// asset write s3://c/a"),
      file("f/c/b.ts", "// pipeline", "// on s3://c/a", "// asset write s3://c/b"),
      file("f/c/sub/a.py", "# pipeline"),
    ]);
    expect(diag(p)).toEqual([
      "warning:f/c/a.ts:0:SCRIPT_NAME_AMBIGUOUS",
      "warning:f/c/sub/a.py:0:SCRIPT_NAME_AMBIGUOUS",
      "warning:f/c/a.ts:0:PIPELINE_CYCLE",
    ]);
  });

  it("reports per-script annotation errors with the script path and fails the pipeline", () => {
    const p = analyzePipeline([file("f/e/x.ts", "// pipeline", '// partitioned daily tz="Nowhere/City"')]);
    expect(p.ok).toBe(false);
    expect(diag(p)).toEqual(["error:f/e/x.ts:2:PARTITION_TZ_INVALID"]);
  });
});

describe("container assets", () => {
  it("a write to a table also fires consumers of its database", () => {
    const { graph } = analyzePipeline([
      file(
        "f/d/stage.ts",
        "// pipeline",
        "const sql = wmill.datatable('main');",
        "await sql`INSERT INTO staged SELECT 1`;",
      ),
      file("f/d/any_table.ts", "// pipeline", "// on datatable://main"),
      file("f/d/one_table.ts", "// pipeline", "// on datatable://main/staged"),
    ]);
    expect(graph.edges.filter((e) => e.kind === "writes")).toEqual([
      { kind: "writes", from: "script:f/d/stage.ts", to: "asset:datatable://main/staged" },
      { kind: "writes", from: "script:f/d/stage.ts", to: "asset:datatable://main", written: "datatable://main/staged" },
    ]);
    expect(cascadeEdges(graph).map((e) => e.to)).toEqual(["script:f/d/any_table.ts", "script:f/d/one_table.ts"]);
  });
});
