/**
 * Seed 001's Quickstart, unchanged: ingest writes s3://demo/raw.json; transform declares
 * it with `// on` and runs automatically, writing s3://demo/sum.json.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeValue } from "../../src/core/serde.js";
import { readDecisions } from "../../src/pipeline/runtime/index.js";
import { startPipelines, type PipelineProject } from "./harness.js";

const INGEST = `// pipeline
import * as wmill from 'windmill-client';

export async function main() {
	await wmill.writeS3File({ s3: 'demo/raw.json' }, JSON.stringify([{ n: 1 }, { n: 2 }]));
}
`;
const TRANSFORM = `// pipeline
// on s3://demo/raw.json
import * as wmill from 'windmill-client';

export async function main() {
	const rows = JSON.parse(await wmill.loadS3File({ s3: 'demo/raw.json' }));
	await wmill.writeS3File({ s3: 'demo/sum.json' }, JSON.stringify({ sum: rows.length }));
}
`;

describe("seed 001 Quickstart: ingest → transform", () => {
  let p: PipelineProject;
  beforeAll(async () => {
    p = await startPipelines({ "f/demo/ingest.ts": INGEST, "f/demo/transform.ts": TRANSFORM });
  });
  afterAll(async () => p?.close());

  it("runs transform once when ingest writes raw.json, and records the writes and the decision", async () => {
    const run = await p.engine.enqueueRun("f/demo/ingest", {});
    await run.result({ timeoutMs: 15_000 });
    await p.settle();
    const transforms = await p.runsOf("f/demo/transform");
    expect(transforms).toHaveLength(1);
    expect(transforms[0]!.status).toBe("succeeded");
    expect(JSON.parse(readFileSync(join(p.root, ".sluice", "s3", "demo", "sum.json"), "utf8"))).toEqual({ sum: 2 });
    const steps = await p.store.getSteps(run.id);
    expect(steps.filter((s) => s.kind === "asset").map((s) => s.target)).toEqual(["s3://demo/raw.json"]);
    const dispatch = steps.find((s) => s.key === "pipeline:dispatch");
    expect(decodeValue<Array<{ outcome: string; subscriber: string }>>(dispatch!.value)).toMatchObject([
      { outcome: "dispatched", subscriber: "f/demo/transform.ts" },
    ]);
    const payload = decodeValue<{ _sluice: { trigger: string; depth: number; upstream: { run: string } } }>(
      transforms[0]!.payload,
    );
    expect(payload._sluice).toMatchObject({ trigger: "cascade", depth: 1, upstream: { run: run.id } });
    const log = await readDecisions(p.store);
    expect(log.map((d) => [d.outcome, d.subscriber])).toEqual([["dispatched", "f/demo/transform.ts"]]);
  });

  it("runs ingest alone with _wmill_skip_asset_dispatch, recording why transform was skipped", async () => {
    const run = await p.engine.enqueueRun("f/demo/ingest", { _wmill_skip_asset_dispatch: true });
    await run.result({ timeoutMs: 15_000 });
    await p.settle();
    expect(await p.runsOf("f/demo/transform")).toHaveLength(1);
    const [latest] = await readDecisions(p.store, { limit: 1 });
    expect(latest).toMatchObject({ outcome: "skipped", subscriber: "f/demo/transform.ts", producerRun: run.id });
    expect(latest!.reason).toContain("_wmill_skip_asset_dispatch");
  });

  it("has the native equivalent: runScript(..., { cascade: false })", async () => {
    const run = await p.pipelines.runScript("f/demo/ingest", {}, { cascade: false });
    await run.result({ timeoutMs: 15_000 });
    await p.settle();
    expect(await p.runsOf("f/demo/transform")).toHaveLength(1);
  });
});

describe("a subscriber that does not load", () => {
  it("is skipped with the reason, and its producer still succeeds", async () => {
    const p = await startPipelines(
      {
        "f/half/ingest.ts": INGEST,
        "f/half/broken.ts": "// pipeline\n// on s3://demo/raw.json\nexport async function main( {\n",
      },
      { allowLoadErrors: true },
    );
    try {
      const run = await p.engine.enqueueRun("f/half/ingest", {});
      await run.result({ timeoutMs: 15_000 });
      const [d] = await readDecisions(p.store, { limit: 1 });
      expect(d).toMatchObject({ outcome: "skipped", subscriber: "f/half/broken.ts" });
      expect(d!.reason).toContain("not loaded");
    } finally {
      await p.close();
    }
  });
});
