/**
 * The pipeline CLI as a function: graph (text, Mermaid, JSON, errors with file and line),
 * run with --to / --from / --dry-run / --partition (stopping at the first failure),
 * backfill of 3 days with a progress bar, and status.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { bufferIO } from "../../src/cli/io.js";
import { run } from "../../src/cli/run.js";
import { decodeValue } from "../../src/core/serde.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { makeProject } from "../helpers/project.js";

const write = (key: string, expr: string) => `await wmill.writeS3File({ s3: ${key} }, JSON.stringify(${expr}));`;
const FILES = {
  "f/etl/ingest.ts": `// pipeline
import * as wmill from 'windmill-client';
export async function main() { ${write("'etl/raw.json'", "[1, 2, 3]")} return 'ingested'; }
`,
  "f/etl/seed.ts": `// pipeline
// on schedule
import * as wmill from 'windmill-client';
export async function main() { ${write("'etl/seed.json'", "{ factor: 10 }")} }
`,
  "f/etl/stage.ts": `// pipeline
// on s3://etl/raw.json
import * as wmill from 'windmill-client';
export async function main(fail?: boolean) {
  if (fail) throw new Error('stage refused: fail=true');
  const rows = JSON.parse(await wmill.loadS3File({ s3: 'etl/raw.json' }));
  ${write("'etl/staged.json'", "rows.map((n: number) => n * 2)")}
}
`,
  "f/etl/report.ts": `// pipeline
// on s3://etl/staged.json
// on s3://etl/seed.json
import * as wmill from 'windmill-client';
export async function main() {
  const staged = JSON.parse(await wmill.loadS3File({ s3: 'etl/staged.json' }));
  const seed = JSON.parse(await wmill.loadS3File({ s3: 'etl/seed.json' }));
  ${write("'etl/report.json'", "staged.map((n: number) => n * seed.factor)")}
}
`,
  "f/daily/extract.ts": `// pipeline
// partitioned daily
import * as wmill from 'windmill-client';
export async function main(partition: string) { ${write("`daily/raw/${partition}.json`", "{ day: partition }")} }
`,
  "f/daily/load.ts": `// pipeline
// on s3://daily/raw/{partition}.json
import * as wmill from 'windmill-client';
export async function main(partition: string) {
  const raw = JSON.parse(await wmill.loadS3File({ s3: \`daily/raw/\${partition}.json\` }));
  ${write("`daily/clean/${partition}.json`", "{ ...raw, clean: true }")}
}
`,
  "f/bad/broken.ts": `// pipeline
// partitioned daily tz="Mars/Olympus"
export async function main() {}
`,
};

async function cli(root: string, ...argv: string[]) {
  const io = bufferIO(root);
  const code = await run(argv, io);
  return { code, out: io.out.join(""), err: io.err.join("") };
}

describe("sluice pipeline", () => {
  let root: string;
  const runs = async (workflow: string) => {
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    try {
      return (await store.listRuns({ workflow, limit: 100 })).reverse();
    } finally {
      await store.close();
    }
  };
  const object = (key: string) => JSON.parse(readFileSync(join(root, ".sluice", "s3", ...key.split("/")), "utf8"));
  beforeAll(() => {
    root = makeProject(FILES);
  });

  it("graph: text outline, Mermaid and JSON", async () => {
    const text = await cli(root, "pipeline", "graph", "f/etl");
    expect(text.code).toBe(0);
    expect(text.out).toContain("(manual) → ingest.ts → s3://etl/raw.json");
    expect(text.out).toContain("s3://etl/staged.json, s3://etl/seed.json → report.ts → s3://etl/report.json");
    expect(text.out).toContain("on schedule: not configured");
    const mermaid = await cli(root, "pipeline", "graph", "f/etl", "--mermaid");
    expect(mermaid.out).toMatch(/^flowchart LR/);
    expect(mermaid.out).toContain('{{"schedule (not configured)"}}:::unconfigured');
    const graph = JSON.parse((await cli(root, "pipeline", "graph", "f/etl", "--json")).out);
    expect(graph.scripts.map((s: { name: string }) => s.name)).toEqual([
      "f/etl/ingest",
      "f/etl/seed",
      "f/etl/stage",
      "f/etl/report",
    ]);
    expect(graph.diagnostics).toMatchObject([
      { file: "f/etl/seed.ts", line: 2, severity: "warning", code: "TRIGGER_NOT_CONFIGURED" },
    ]);
  });

  it("graph: reports annotation errors with file and line and exits 1", async () => {
    const bad = await cli(root, "pipeline", "graph", "f/bad");
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/f\/bad\/broken\.ts:2: error: .*Mars\/Olympus.*\[PARTITION_TZ_INVALID\]/);
    const refused = await cli(root, "pipeline", "run", "f/bad");
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("pipeline f/bad has errors");
  });

  it("run --dry-run prints exactly the slice, and needs --from when two starts reach the ends", async () => {
    const ambiguous = await cli(root, "pipeline", "run", "f/etl", "--to", "report", "--dry-run");
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.err).toContain(
      "2 valid starts: f/etl/ingest.ts, f/etl/seed.ts (reaching every end: f/etl/ingest.ts, f/etl/seed.ts)",
    );
    // Only ingest leads to stage: it is the start without --from.
    const sole = await cli(root, "pipeline", "run", "f/etl", "--to", "stage", "--dry-run", "--json");
    expect(sole.code).toBe(0);
    expect(JSON.parse(sole.out)).toMatchObject({
      start: "f/etl/ingest.ts",
      steps: ["f/etl/ingest.ts", "f/etl/stage.ts"],
    });
    const plan = await cli(
      root,
      "pipeline",
      "run",
      "f/etl",
      "--from",
      "ingest",
      "--to",
      "stage",
      "--dry-run",
      "--json",
    );
    expect(JSON.parse(plan.out)).toMatchObject({
      start: "f/etl/ingest.ts",
      ends: ["f/etl/stage.ts"],
      steps: ["f/etl/ingest.ts", "f/etl/stage.ts"],
      dryRun: true,
    });
    const byAsset = await cli(
      root,
      "pipeline",
      "run",
      "f/etl",
      "--from",
      "seed",
      "--to",
      "s3://etl/report.json",
      "--dry-run",
    );
    expect(byAsset.out).toContain("1. f/etl/seed.ts\n  2. f/etl/report.ts\n");
    expect(await runs("f/etl/ingest")).toHaveLength(0);
  });

  it("run --from/--to runs the slice in order, nothing past it, and no cascade", async () => {
    const res = await cli(root, "pipeline", "run", "f/etl", "--from", "ingest", "--to", "stage");
    expect(res.code, res.err).toBe(0);
    expect(res.out).toMatch(/✓ succeeded {2}f\/etl\/ingest\.ts/);
    expect(res.out).toMatch(/✓ succeeded {2}f\/etl\/stage\.ts/);
    expect(object("etl/staged.json")).toEqual([2, 4, 6]);
    expect(await runs("f/etl/report")).toHaveLength(0);
    expect(await runs("f/etl/stage")).toHaveLength(1);
  });

  it("run stops at the first failure, says what did not run, and exits 1", async () => {
    const res = await cli(
      root,
      "pipeline",
      "run",
      "f/etl",
      "--from",
      "ingest",
      "--to",
      "report",
      "--args",
      '{"fail": true}',
      "--json",
    );
    expect(res.code).toBe(1);
    const out = JSON.parse(res.out);
    expect(out.status).toBe("failed");
    expect(out.steps.map((s: { status: string }) => s.status)).toEqual(["succeeded", "failed", "not run"]);
    expect(out.error).toContain("step f/etl/stage.ts failed: stage refused: fail=true");
    expect(out.error).toContain("not run: f/etl/report.ts");
  });

  it("run without --to runs every script downstream of --from with one partition", async () => {
    const res = await cli(root, "pipeline", "run", "f/daily", "--partition", "2026-04-30", "--json");
    expect(res.code, res.err).toBe(0);
    expect(JSON.parse(res.out)).toMatchObject({
      status: "succeeded",
      partition: "2026-04-30",
      steps: [{ step: "f/daily/extract.ts" }, { step: "f/daily/load.ts" }],
    });
    expect(object("daily/clean/2026-04-30.json")).toEqual({ day: "2026-04-30", clean: true });
  });

  it("run refuses a --partition that is not one of a daily script's days, before anything is written", async () => {
    for (const bad of ["not-a-date", "2026-13-45", "2026-W20"]) {
      const res = await cli(root, "pipeline", "run", "f/daily", "--partition", bad, "--json");
      expect(res.code).toBe(1);
      expect(JSON.parse(res.out).error).toContain(
        `${JSON.stringify(bad)} is not a daily partition: write it as YYYY-MM-DD (format "%Y-%m-%d")`,
      );
      expect(existsSync(join(root, ".sluice", "s3", "daily", "raw", `${bad}.json`))).toBe(false);
    }
  });

  it("backfill runs 3 days through the chain with a progress bar", async () => {
    const dry = await cli(
      root,
      "pipeline",
      "backfill",
      "f/daily",
      "--from-partition",
      "2026-05-01",
      "--to-partition",
      "2026-05-03",
      "--dry-run",
    );
    expect(dry.out).toContain("3 daily (tz=UTC, format=%Y-%m-%d) partition(s) × 2 step(s)");
    const res = await cli(
      root,
      "pipeline",
      "backfill",
      "f/daily",
      "--from-partition",
      "2026-05-01",
      "--to-partition",
      "2026-05-03",
    );
    expect(res.code, res.err).toBe(0);
    expect(res.out).toContain("[....................] 0/3");
    expect(res.out).toMatch(/\[#{7}\.{13}\] 1\/3 2026-05-01 ✓/);
    expect(res.out).toMatch(/\[#{20}\] 3\/3 2026-05-03 ✓/);
    expect(res.out).toContain("backfilled 3 partition(s)");
    for (const day of ["2026-05-01", "2026-05-02", "2026-05-03"])
      expect(object(`daily/clean/${day}.json`)).toEqual({ day, clean: true });
    const loads = await runs("f/daily/load");
    expect(loads.map((r) => decodeValue<{ partition: string }>(r.payload).partition)).toEqual([
      "2026-04-30",
      "2026-05-01",
      "2026-05-02",
      "2026-05-03",
    ]);
  });

  it("status shows last runs and the partitions written per asset", async () => {
    const res = await cli(root, "pipeline", "status", "f/daily", "--json");
    expect(res.code, res.err).toBe(0);
    const status = JSON.parse(res.out);
    expect(status.scripts[0]).toMatchObject({
      path: "f/daily/extract.ts",
      lastRun: { status: "succeeded", trigger: "plan", partition: "2026-05-03" },
    });
    const clean = status.assets.find((a: { uri: string }) => a.uri === "s3://daily/raw/{partition}.json");
    expect(clean.partitions.map((p: { partition: string }) => p.partition)).toEqual([
      "2026-04-30",
      "2026-05-01",
      "2026-05-02",
      "2026-05-03",
    ]);
    const text = await cli(root, "pipeline", "status", "f/daily");
    expect(text.out).toContain(
      "s3://daily/raw/{partition}.json  written: 2026-04-30, 2026-05-01, 2026-05-02, 2026-05-03",
    );
  });
});
