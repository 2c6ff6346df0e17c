/**
 * The "declare it" hints of asset detection name a line of the script's own comment syntax: a
 * Python script whose S3 path is built at run time is told to add `# asset write <uri>`, and that
 * line, added as told, gives the graph its edge and the script still runs. The hint said
 * `// asset write <uri>`, which in Python is a syntax error (`//` is floor division).
 * Real binary: `sluice pipeline graph` (text and --json) and `sluice pipeline run`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { finished, spawnSluice } from "../helpers/processes.js";

const EXPORT = `# pipeline
# partitioned daily
import wmill


def main(partition: str, region: str = "eu"):
    key = "exports/" + region + "/" + partition + ".json"
    wmill.write_s3_file(key, "[]")
    return key
`;

describe("a Python script's asset hints", { timeout: 120_000 }, () => {
  const root = makeProject({ "f/ex/export.py": EXPORT });

  it("say `# asset write`, and the line added as told gives the edge and still runs", async () => {
    const before = await finished(spawnSluice(["pipeline", "graph", "f/ex"], root));
    expect(before.code, before.err).toBe(0);
    const hint = /declare it with `(# asset write) <uri>`/.exec(before.out);
    expect(hint, before.out).not.toBeNull();
    expect(before.out).not.toContain("`// asset");
    const file = join(root, "f/ex/export.py");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace(
        "# partitioned daily\n",
        `# partitioned daily\n${hint![1]} s3://exports/eu/{partition}.json\n`,
      ),
    );
    const graph = await finished(spawnSluice(["pipeline", "graph", "f/ex", "--json"], root));
    const outputs = (JSON.parse(graph.out) as { scripts: Array<{ outputs: Array<{ asset: string }> }> }).scripts[0]!
      .outputs;
    expect(outputs.map((o) => o.asset)).toEqual(["s3://exports/eu/{partition}.json"]);
    const run = await finished(spawnSluice(["pipeline", "run", "f/ex", "--partition", "2026-05-01"], root));
    expect(run.code, run.out + run.err).toBe(0);
    expect(run.out).toMatch(/✓ succeeded\s+f\/ex\/export\.py/);
  });
});
