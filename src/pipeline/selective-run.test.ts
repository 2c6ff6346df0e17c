import { describe, expect, it } from "vitest";
import { analyzePipeline } from "./analyze.js";
import { PipelineCycleError, PipelineSelectionError } from "./errors.js";
import { resolveNode } from "./node-resolve.js";
import { planSelectiveRun, splitNodeList, validStarts } from "./selective-run.js";

const file = (path: string, ...lines: string[]) => ({ path, source: lines.join("\n") });

/**
 * ingest (schedule) → raw → stage → datatable://main/staged → report → s3://out/report.csv
 *                                 ↘ audit
 * stage also → s3://lake/clean → publish
 */
const etl = analyzePipeline([
  file("f/etl/ingest.ts", "// pipeline", "// on schedule", "// asset write s3://lake/raw.json"),
  file(
    "f/etl/stage.ts",
    "// pipeline",
    "// on s3://lake/raw.json",
    "// asset write datatable://main/staged",
    "// asset write s3://lake/clean.json",
  ),
  file("f/etl/report.ts", "// pipeline", "// on datatable://main/staged", "// asset write s3://out/report.csv"),
  file("f/etl/audit.ts", "// pipeline", "// on datatable://main/staged"),
  file("f/etl/publish.ts", "// pipeline", "// on s3://lake/clean.json"),
]).graph;

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PipelineSelectionError);
    return (e as PipelineSelectionError).code;
  }
  return undefined;
}

describe("planSelectiveRun", () => {
  it("--to an asset URI runs exactly the steps needed to produce it (seed CLI example)", () => {
    expect(planSelectiveRun(etl, { to: ["datatable://main/staged"] })).toMatchObject({
      start: "f/etl/ingest.ts",
      steps: ["f/etl/ingest.ts", "f/etl/stage.ts"],
    });
  });

  it("--to a script name or path includes it and nothing past it", () => {
    expect(planSelectiveRun(etl, { to: ["report"] }).steps).toEqual([
      "f/etl/ingest.ts",
      "f/etl/stage.ts",
      "f/etl/report.ts",
    ]);
    expect(planSelectiveRun(etl, { to: ["f/etl/report"] }).steps).toEqual([
      "f/etl/ingest.ts",
      "f/etl/stage.ts",
      "f/etl/report.ts",
    ]);
    expect(planSelectiveRun(etl, { to: ["f/etl/report.ts"] }).steps).toEqual([
      "f/etl/ingest.ts",
      "f/etl/stage.ts",
      "f/etl/report.ts",
    ]);
  });

  it("several ends: the union of their paths, in topological order", () => {
    expect(planSelectiveRun(etl, { to: ["publish", "s3://out/report.csv"] }).steps).toEqual([
      "f/etl/ingest.ts",
      "f/etl/stage.ts",
      "f/etl/publish.ts",
      "f/etl/report.ts",
    ]);
  });

  it("--to the start itself runs only the start", () => {
    expect(planSelectiveRun(etl, { to: ["ingest"] }).steps).toEqual(["f/etl/ingest.ts"]);
  });

  it("an explicit --from that is a valid start", () => {
    expect(planSelectiveRun(etl, { from: "ingest", to: ["audit"] }).steps).toEqual([
      "f/etl/ingest.ts",
      "f/etl/stage.ts",
      "f/etl/audit.ts",
    ]);
  });

  it("a mid-chain --from is refused unless allowAnyStart", () => {
    expect(codeOf(() => planSelectiveRun(etl, { from: "stage", to: ["audit"] }))).toBe("PIPELINE_INVALID_START");
    expect(planSelectiveRun(etl, { from: "stage", to: ["audit"], allowAnyStart: true }).steps).toEqual([
      "f/etl/stage.ts",
      "f/etl/audit.ts",
    ]);
  });

  it("an asset as --from is refused", () => {
    expect(codeOf(() => planSelectiveRun(etl, { from: "s3://lake/raw.json", to: ["audit"] }))).toBe(
      "PIPELINE_INVALID_START",
    );
  });

  it("unknown, ambiguous and unreachable nodes fail clearly", () => {
    expect(codeOf(() => planSelectiveRun(etl, { to: ["nope"] }))).toBe("PIPELINE_UNKNOWN_NODE");
    expect(codeOf(() => planSelectiveRun(etl, { to: ["s3://not/here"] }))).toBe("PIPELINE_UNKNOWN_NODE");
    expect(codeOf(() => planSelectiveRun(etl, { to: ["gs://bad"] }))).toBe("PIPELINE_UNKNOWN_NODE");
    expect(codeOf(() => planSelectiveRun(etl, { to: [] }))).toBe("PIPELINE_NO_TARGETS");
    expect(codeOf(() => planSelectiveRun(etl, { to: ["  "] }))).toBe("PIPELINE_NO_TARGETS");
    expect(codeOf(() => planSelectiveRun(etl, { to: ["s3://lake/raw.json"], from: "ingest" }))).toBeUndefined();
    expect(() => planSelectiveRun(etl, { to: ["nope"] })).toThrow(
      "known scripts: audit, ingest, publish, report, stage",
    );
  });

  it("an end that is not downstream of the start is unreachable", () => {
    const graph = analyzePipeline([
      file("f/t/a.ts", "// pipeline", "// on schedule", "// asset write s3://t/a"),
      file("f/t/b.ts", "// pipeline", "// on webhook", "// asset write s3://t/b"),
      file("f/t/c.ts", "// pipeline", "// on s3://t/b"),
    ]).graph;
    expect(codeOf(() => planSelectiveRun(graph, { from: "a", to: ["c"] }))).toBe("PIPELINE_UNREACHABLE");
    expect(codeOf(() => planSelectiveRun(graph, { from: "a", to: ["s3://t/b"] }))).toBe("PIPELINE_UNREACHABLE");
  });

  it("--from defaults to the sole valid start, or the sole one reaching every end; else several starts need --from", () => {
    const graph = analyzePipeline([
      file("f/t/a.ts", "// pipeline", "// on schedule", "// asset write s3://t/a"),
      file("f/t/b.ts", "// pipeline", "// asset write s3://t/b"),
      file("f/t/c.ts", "// pipeline", "// on s3://t/a", "// on s3://t/b"),
    ]).graph;
    expect(validStarts(graph)).toEqual(["f/t/a.ts", "f/t/b.ts"]);
    expect(codeOf(() => planSelectiveRun(graph, { to: ["c"] }))).toBe("PIPELINE_AMBIGUOUS_START");
    expect(() => planSelectiveRun(graph, { to: ["c"] })).toThrow(
      /f\/t\/a\.ts, f\/t\/b\.ts \(reaching every end: f\/t\/a\.ts, f\/t\/b\.ts\); pass --from/,
    );
    expect(planSelectiveRun(graph, { from: "b", to: ["c"] }).steps).toEqual(["f/t/b.ts", "f/t/c.ts"]);
    // Only a reaches s3://t/a: it is the start, without --from.
    expect(planSelectiveRun(graph, { to: ["s3://t/a"] })).toMatchObject({ start: "f/t/a.ts", steps: ["f/t/a.ts"] });
  });

  it("a pipeline where every script is fired by another has no valid start", () => {
    const graph = analyzePipeline([
      file("f/c/a.ts", "// pipeline", "// on s3://c/b", "// asset write s3://c/a"),
      file("f/c/b.ts", "// pipeline", "// on s3://c/a", "// asset write s3://c/b"),
    ]).graph;
    expect(validStarts(graph)).toEqual([]);
    expect(codeOf(() => planSelectiveRun(graph, { to: ["a"] }))).toBe("PIPELINE_NO_START");
    expect(() => planSelectiveRun(graph, { from: "a", to: ["b"], allowAnyStart: true })).toThrow(PipelineCycleError);
  });

  it("a script with a native trigger is a valid start even when it has upstream inputs", () => {
    const graph = analyzePipeline([
      file("f/t/a.ts", "// pipeline", "// asset write s3://t/a"),
      file("f/t/b.ts", "// pipeline", "// on s3://t/a", "// on schedule"),
    ]).graph;
    expect(validStarts(graph)).toEqual(["f/t/a.ts", "f/t/b.ts"]);
  });
});

describe("resolveNode", () => {
  const graph = analyzePipeline([
    file("f/p/a.ts", "// pipeline", "// partitioned daily", "// asset write s3://lake/{partition}/a.parquet"),
    file("f/p/x/a.py", "# pipeline"),
  ]).graph;

  it("resolves a concrete URI to its {partition} node and extracts the partition", () => {
    expect(resolveNode(graph, "s3://lake/2026-05-16/a.parquet")).toMatchObject({
      type: "asset",
      node: { asset: { uri: "s3://lake/{partition}/a.parquet" } },
      partition: "2026-05-16",
    });
    expect(resolveNode(graph, "S3:///lake/{partition}/a.parquet")).toMatchObject({ type: "asset" });
  });

  it("a name shared by two scripts is ambiguous; the path is not", () => {
    expect(codeOf(() => resolveNode(graph, "a"))).toBe("PIPELINE_AMBIGUOUS_NODE");
    expect(resolveNode(graph, "f/p/x/a.py")).toMatchObject({ type: "script", node: { path: "f/p/x/a.py" } });
    expect(resolveNode(graph, " f/p/a ")).toMatchObject({ type: "script", node: { path: "f/p/a.ts" } });
  });

  it("a path-like reference does not fall back to the name", () => {
    expect(codeOf(() => resolveNode(graph, "f/q/a.ts"))).toBe("PIPELINE_UNKNOWN_NODE");
  });
});

describe("splitNodeList", () => {
  it("splits the --to value", () => {
    expect(splitNodeList("a, f/x/b ,datatable://main/staged,,")).toEqual(["a", "f/x/b", "datatable://main/staged"]);
  });
});
