import { describe, expect, it } from "vitest";
import type { PipelineGraphJson } from "../../../pipeline/runtime/render";
import type { PipelineStatus } from "../../../pipeline/runtime/status";
import { pipelineView } from "./pipeline-view";

const script = (path: string, extra: Partial<PipelineGraphJson["scripts"][number]> = {}) =>
  ({
    path,
    name: path.replace(/\.ts$/, ""),
    language: "typescript",
    inputs: [],
    outputs: [],
    reads: [],
    trigger: "any",
    partition: null,
    retry: null,
    tag: null,
    freshnessSeconds: null,
    triggers: [],
    labels: [],
    ...extra,
  }) as PipelineGraphJson["scripts"][number];

describe("pipeline view", () => {
  it("joins the graph with last runs, written partitions and trigger states", () => {
    const graph = {
      folder: "f/demo",
      ok: true,
      diagnostics: [],
      scripts: [
        script("f/demo/ingest.ts", { triggers: [{ kind: "schedule", state: "not-configured" }] }),
        script("f/demo/transform.ts"),
      ],
      assets: [{ uri: "s3://demo/raw.json", kind: "s3", partitioned: false }],
      edges: [
        { kind: "writes", from: "script:f/demo/ingest.ts", to: "asset:s3://demo/raw.json" },
        { kind: "triggers", from: "asset:s3://demo/raw.json", to: "script:f/demo/transform.ts" },
        { kind: "fires", from: "trigger:schedule:f/demo/ingest.ts", to: "script:f/demo/ingest.ts" },
      ],
    } as unknown as PipelineGraphJson;
    const status = {
      folder: "f/demo",
      ok: true,
      joins: [],
      debounces: [],
      decisions: [],
      scripts: [
        {
          path: "f/demo/transform.ts",
          name: "f/demo/transform",
          lastRun: {
            id: "r1",
            status: "running",
            trigger: "cascade",
            partition: null,
            createdAt: 1,
            finishedAt: null,
            error: null,
          },
          freshness: null,
          triggers: [],
        },
      ],
      assets: [
        {
          uri: "s3://demo/raw.json",
          partitions: [{ partition: null, uri: "s3://demo/raw.json", run: "r0", script: "f/demo/ingest.ts", at: 5 }],
        },
      ],
    } as unknown as PipelineStatus;
    const view = pipelineView(graph, status);
    expect(view.nodes.map((n) => [n.kind, n.label])).toEqual([
      ["script", "ingest.ts"],
      ["trigger", "schedule (not configured)"],
      ["script", "transform.ts"],
      ["asset", "s3://demo/raw.json"],
    ]);
    expect(view.nodes.find((n) => n.id === "script:f/demo/transform.ts")).toMatchObject({
      status: "running",
      runId: "r1",
      trigger: "cascade",
    });
    expect(view.nodes.find((n) => n.kind === "asset")).toMatchObject({ written: 1 });
    expect(view.edges.map((e) => [e.kind, e.active])).toEqual([
      ["writes", false],
      ["triggers", true],
      ["fires", false],
    ]);
    expect(pipelineView(graph, null).nodes.find((n) => n.kind === "script")).toMatchObject({ status: null });
  });

  it("puts a materialized table's column lineage on the write edge into it", () => {
    const graph = {
      folder: "f/lake",
      ok: true,
      diagnostics: [],
      scripts: [script("f/lake/daily.sql"), script("f/lake/report.sql")],
      assets: [{ uri: "ducklake://main/daily", kind: "ducklake", partitioned: true }],
      edges: [
        { kind: "writes", from: "script:f/lake/daily.sql", to: "asset:ducklake://main/daily" },
        { kind: "triggers", from: "asset:ducklake://main/daily", to: "script:f/lake/report.sql" },
      ],
    } as unknown as PipelineGraphJson;
    const columns = ["id ← ducklake://main/orders.id", "doubled ← ducklake://main/orders.amount"];
    const status = {
      folder: "f/lake",
      ok: true,
      joins: [],
      debounces: [],
      decisions: [],
      scripts: [],
      assets: [{ uri: "ducklake://main/daily", partitions: [], columns }],
    } as unknown as PipelineStatus;
    expect(pipelineView(graph, status).edges.map((e) => [e.kind, e.columns])).toEqual([
      ["writes", columns],
      ["triggers", undefined],
    ]);
    expect(pipelineView(graph, null).edges[0]!.columns).toBeUndefined();
    // before a first write the graph's edge carries the lineage its SQL gives: the badge shows it
    const inferred = {
      ...graph,
      edges: [
        {
          ...graph.edges[0]!,
          lineage: {
            source: "static",
            snapshot_id: null,
            run: null,
            at: null,
            columns: [
              {
                output: "id",
                sources: [{ table: "ducklake://main/orders", column: "id" }],
                passthrough: true,
                origin: "inferred",
              },
              { output: "x", sources: [], passthrough: false, origin: "unknown" },
            ],
            warnings: [],
          },
        },
      ],
    } as unknown as PipelineGraphJson;
    expect(pipelineView(inferred, null).edges[0]!.columns).toEqual(["id ← ducklake://main/orders.id", "x ← (unknown)"]);
  });
});
