/**
 * A managed `// materialize` that Sluice cannot perform must fail its run: the asset is not
 * recorded as written, no asset step is saved and the downstream does not fire.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WRITTEN_PREFIX } from "../../src/pipeline/runtime/run-context.js";
import { startPipelines, type PipelineProject } from "./harness.js";

const PRODUCE_SQL = `-- pipeline
-- materialize ducklake://main/t
SELECT 1 AS x, 'a' AS y
`;

const CONSUME_SQL = `-- pipeline
-- on ducklake://main/t
SELECT 42 AS answer
`;

const MANUAL_SQL = `-- pipeline
-- materialize manual ducklake://main/m
SELECT 7 AS seven
`;

describe("managed // materialize without the lake writer", () => {
  let p: PipelineProject;
  beforeAll(async () => {
    p = await startPipelines({ "f/mat/produce.sql": PRODUCE_SQL, "f/mat/consume.sql": CONSUME_SQL, "f/mat/manual.sql": MANUAL_SQL });
  });
  afterAll(async () => p?.close());

  it("fails the run with MATERIALIZE_NOT_AVAILABLE, records no write and fires no downstream", async () => {
    const h = await p.pipelines.runScript("f/mat/produce", {});
    await expect(h.result({ timeoutMs: 15_000 })).rejects.toThrow(/managed \/\/ materialize into ducklake:\/\/main\/t is not available/);
    await p.settle();
    const [run] = await p.runsOf("f/mat/produce");
    expect(run?.status).toBe("failed");
    expect(run?.error?.code).toBe("MATERIALIZE_NOT_AVAILABLE");
    expect((await p.store.getSteps(h.id)).filter((s) => s.kind === "asset")).toEqual([]);
    expect((await p.store.kvList(WRITTEN_PREFIX)).filter((r) => r.key.includes("ducklake://main/t"))).toEqual([]);
    expect(await p.runsOf("f/mat/consume")).toEqual([]);
  });

  it("still runs a `manual` materialization, which is track-only by the seed's definition", async () => {
    const h = await p.pipelines.runScript("f/mat/manual", {});
    expect(await h.result({ timeoutMs: 15_000 })).toEqual([{ seven: 7 }]);
    expect((await p.store.getSteps(h.id)).filter((s) => s.kind === "asset").map((s) => s.target)).toEqual(["ducklake://main/m"]);
  });
});
