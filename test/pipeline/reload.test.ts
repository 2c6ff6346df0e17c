/**
 * Dev reloading: a new SQL member and a changed `pipeline.json` are picked up by the
 * watcher; a TypeScript member reloaded by the loader gets its new annotations.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFiles } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";
import { startPipelines, type PipelineProject } from "./harness.js";

describe("reloading pipelines", () => {
  let p: PipelineProject;
  beforeAll(async () => {
    p = await startPipelines(
      {
        "f/r/a.py": "# pipeline\ndef main():\n    return 1\n",
        "f/r/t.ts": "// pipeline\nexport async function main() { return 't'; }\n",
      },
      { watch: true },
    );
  });
  afterAll(async () => p?.close());

  it("registers a new SQL script and a new schedule row without a restart", async () => {
    expect(p.engine.registry.get("f/r/b")).toBeUndefined();
    await p.pipelines.whenWatching();
    writeFiles(p.root, {
      "f/r/b.sql": "-- pipeline\n-- on schedule\nSELECT 42 AS answer;\n",
      "f/r/pipeline.json": JSON.stringify({ triggers: { b: { schedule: "*/5 * * * *" } } }),
    });
    await eventually(() => p.engine.registry.get("f/r/b")?.def.schedule?.cron === "*/5 * * * *", 10_000);
    const h = await p.engine.enqueueRun("f/r/b", {});
    expect(await h.result({ timeoutMs: 10_000 })).toEqual([{ answer: 42 }]);
  });

  it("gives a reloaded TypeScript member its new annotations", async () => {
    writeFiles(p.root, { "f/r/t.ts": "// pipeline\n// tag gpu\nexport async function main() { return 't2'; }\n" });
    await p.project.loadFile("f/r/t.ts");
    expect(p.engine.registry.get("f/r/t")!.def.queue).toBe("gpu");
    expect(p.pipelines.catalog().member("f/r/t.ts")!.analyzed.annotations.tag?.name).toBe("gpu");
  });
});
