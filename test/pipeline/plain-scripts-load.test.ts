/**
 * Which files are plain DuckDB SQL and Bash scripts, and how their registration follows the
 * files (in-process, on a real SQLite file): only under `f/` and `u/`, never a pipeline member or
 * a member's data test; a script that gains or loses `-- pipeline` changes hands; `x.sql` beside
 * `x.ts` runs as neither; a plain script's pipeline annotations take no effect.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PipelineCatalog } from "../../src/pipeline/runtime/catalog.js";
import { discoverPlainScripts, pipelineOwnedFiles } from "../../src/pipeline/runtime/plain-scripts.js";
import { makeProject, writeFiles } from "../helpers/project.js";
import { startPipelines, type PipelineProject } from "./harness.js";

describe("discoverPlainScripts", () => {
  it("finds .sql and .sh files under f/ and u/ that no pipeline owns", () => {
    const root = makeProject({
      "sluice.json": "{}",
      "f/a/q.sql": "SELECT 1",
      "u/ann/run.sh": "echo hi",
      "f/a/member.sql": "-- pipeline\nSELECT 2 AS n",
      "f/a/checked.sql": "-- pipeline\n-- materialize ducklake://main/t\n-- data_test f/checks/positive\nSELECT 1 AS n",
      "f/checks/positive.sql": "SELECT * FROM slice WHERE n <= 0",
      "f/a/notes.txt": "SELECT 3",
      "f/.hidden/x.sql": "SELECT 4",
      "f/a/node_modules/y.sql": "SELECT 5",
      "top.sql": "SELECT 6",
      "workflows/w.sql": "SELECT 7",
    });
    const owned = pipelineOwnedFiles(root, PipelineCatalog.scan(root));
    expect([...owned].sort()).toEqual(["f/a/checked.sql", "f/a/member.sql", "f/checks/positive.sql"]);
    expect(discoverPlainScripts(root, owned)).toEqual([
      { path: "f/a/q.sql", name: "f/a/q", folder: "f/a", language: "sql", source: "SELECT 1" },
      { path: "u/ann/run.sh", name: "u/ann/run", folder: "u/ann", language: "bash", source: "echo hi" },
    ]);
  });
});

describe("plain scripts of a running project", { timeout: 60_000 }, () => {
  let p: PipelineProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it("change hands with the pipeline when `-- pipeline` is added and taken away", async () => {
    p = await startPipelines({ "sluice.json": "{}", "f/s/q.sql": "SELECT 1 AS n;\n" });
    const plainDef = p.engine.registry.get("f/s/q")!;
    expect(plainDef.source).toBe("f/s/q.sql");
    expect(await (await p.engine.enqueueRun("f/s/q", {})).result({ timeoutMs: 15_000 })).toEqual([{ n: 1 }]);

    writeFiles(p.root, { "f/s/q.sql": "-- pipeline\nSELECT 2 AS n;\n" });
    await p.pipelines.reload();
    expect(p.pipelines.catalog().member("f/s/q.sql")).toBeDefined();
    expect(p.engine.registry.get("f/s/q")!.def).not.toBe(plainDef.def);
    expect(p.pipelines.plainScripts.scripts()).toEqual([]);
    expect(await (await p.engine.enqueueRun("f/s/q", {})).result({ timeoutMs: 15_000 })).toEqual([{ n: 2 }]);
    // Still published: the member took the name over, it was not removed.
    expect((await p.store.getWorkflow("f/s/q"))?.removedAt ?? null).toBeNull();

    writeFiles(p.root, { "f/s/q.sql": "SELECT 3 AS n;\n" });
    await p.pipelines.reload();
    expect(p.pipelines.plainScripts.scripts().map((s) => s.path)).toEqual(["f/s/q.sql"]);
    expect(await (await p.engine.enqueueRun("f/s/q", {})).result({ timeoutMs: 15_000 })).toEqual([{ n: 3 }]);
  });

  it("x.sql beside a plain x.ts: neither runs, the clash is told; deleting one lets the other run", async () => {
    p = await startPipelines(
      {
        "sluice.json": "{}",
        "f/c/x.sql": "SELECT 'sql' AS who;\n",
        "f/c/x.ts": "export async function main() { return 'ts'; }\n",
      },
      { allowLoadErrors: true },
    );
    expect(p.pipelines.plainScripts.errors().map((e) => e.error.message)).toEqual([
      expect.stringMatching(/"f\/c\/x" is defined twice \(in f\/c\/x\.sql and in f\/c\/x\.ts\)/),
    ]);
    await expect(p.engine.enqueueRun("f/c/x", {})).rejects.toThrow(/defined twice/);
    expect(await p.store.countRuns({})).toBe(0);

    rmSync(join(p.root, "f/c/x.ts"));
    await p.pipelines.reload();
    expect(p.pipelines.plainScripts.errors()).toEqual([]);
    expect(await (await p.engine.enqueueRun("f/c/x", {})).result({ timeoutMs: 15_000 })).toEqual([{ who: "sql" }]);
  });

  it("leaves a name a TypeScript workflow defines to it, and says so", async () => {
    const lines: string[] = [];
    p = await startPipelines(
      {
        "sluice.json": "{}",
        "f/d/y.sql": "SELECT 'sql' AS who;\n",
        "workflows/y.ts": `import { defineWorkflow } from "sluice";\nexport const y = defineWorkflow("f/d/y", { handler: async () => "ts" });\n`,
      },
      { log: (line) => lines.push(line) },
    );
    expect(await (await p.engine.enqueueRun("f/d/y", {})).result({ timeoutMs: 15_000 })).toBe("ts");
    expect(lines.join("")).toMatch(
      /error: f\/d\/y\.sql: .*"f\/d\/y" is defined twice \(in f\/d\/y\.sql and in workflows\/y\.ts\)/,
    );
  });

  it("take no effect from pipeline annotations without `-- pipeline`: a `-- materialize` only warns", async () => {
    const lines: string[] = [];
    p = await startPipelines(
      {
        "sluice.json": "{}",
        "f/m/t.sql": "-- materialize ducklake://main/t\nSELECT 1 AS n;\n",
      },
      { log: (line) => lines.push(line) },
    );
    expect(lines.join("")).toContain(
      "f/m/t.sql:1: warning: `-- materialize` takes effect only in a pipeline script: this plain script runs its SQL as it is and writes no table; add a `-- pipeline` line [NOT_A_PIPELINE_MEMBER]",
    );
    expect(await (await p.engine.enqueueRun("f/m/t", {})).result({ timeoutMs: 15_000 })).toEqual([{ n: 1 }]);
    expect(existsSync(join(p.root, ".sluice", "lakes", "main.sqlite"))).toBe(false);
  });
});
