/**
 * Load errors stay local, as users meet them: a broken annotation added to one of three
 * scripts while `sluice dev` runs leaves the other two working; the node shows the error in
 * `pipeline graph`, `pipeline status` and the API, and a cascade to it records
 * "not loaded: <reason>". Also the depth cap warning of `pipeline graph` and its per-folder setting.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PipelineCatalog } from "../../src/pipeline/runtime/catalog.js";
import { makeProject } from "../helpers/project.js";
import { type SluiceProcess, spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";

const step = (input: string | null, output: string, extra = "") => `// pipeline
${input ? `// on s3://x/${input}/{partition}.json\n` : "// partitioned daily\n"}${extra}import * as wmill from 'windmill-client';
export async function main(partition: string) {
  await wmill.writeS3File({ s3: \`x/${output}/\${partition}.json\` }, '{}');
}
`;

async function done(p: SluiceProcess) {
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

describe("a load error in one script stays local", { timeout: 120_000 }, () => {
  it("a broken annotation in one of three scripts: the other two keep cascading, the node shows why", async () => {
    const root = makeProject({
      "f/x/a.ts": step(null, "raw"),
      "f/x/b.ts": step("raw", "b"),
      "f/x/c.ts": step("raw", "c"),
    });
    const dev = spawnSluice(["dev", ".", "--port", "0"], root);
    await dev.waitFor(/UI: (http:\/\/127\.0\.0\.1:\d+)/, 40_000);
    const url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
    // The file watcher may still be starting: write until dev reports the reload.
    await eventually(
      () => {
        writeFileSync(join(root, "f/x/b.ts"), step("raw", "b", '// partitioned daily tz="Nowhere/Land"\n'));
        return /reloaded f\/x\/b\.ts/.test(dev.output());
      },
      30_000,
      1_500,
    );
    await dev.waitFor(/pipeline script f\/x\/b\.ts is not loaded \(the rest of f\/x is\)/, 30_000);

    const graph = await done(spawnSluice(["pipeline", "graph", "f/x"], root));
    expect(graph.code).toBe(1);
    expect(graph.out).toContain("pipeline f/x: 3 script(s) — 1 not loaded (errors below), the others run");
    expect(graph.out).toMatch(/NOT LOADED: .*Nowhere\/Land.*\(f\/x\/b\.ts:3\)/);
    const json = JSON.parse((await done(spawnSluice(["pipeline", "graph", "f/x", "--json"], root))).out);
    expect(json.scripts.map((s: { path: string; error: string | null }) => [s.path, s.error !== null])).toEqual([
      ["f/x/a.ts", false],
      ["f/x/b.ts", true],
      ["f/x/c.ts", false],
    ]);
    const api = (await (await fetch(`${url}/api/pipelines`)).json()) as {
      pipelines: Array<{ scripts: Array<{ path: string; error: string | null }> }>;
    };
    expect(api.pipelines[0]!.scripts.find((s) => s.path === "f/x/b.ts")!.error).toMatch(/Nowhere\/Land/);

    const enq = await done(spawnSluice(["enqueue", "f/x/a", '{"partition": "2026-05-01"}'], root));
    expect(enq.code, enq.err).toBe(0);
    await eventually(() => existsSync(join(root, ".sluice/s3/x/c/2026-05-01.json")), 30_000);
    const status = await eventually(async () => {
      const s = JSON.parse((await done(spawnSluice(["pipeline", "status", "f/x", "--json"], root))).out);
      return s.decisions.length >= 2 ? s : undefined;
    }, 30_000);
    const about = (p: string) => status.decisions.find((d: { subscriber: string }) => d.subscriber === p);
    expect(about("f/x/c.ts")).toMatchObject({ outcome: "dispatched", producer: "f/x/a.ts" });
    expect(about("f/x/b.ts")).toMatchObject({ outcome: "skipped", producer: "f/x/a.ts" });
    expect(about("f/x/b.ts").reason).toMatch(/^not loaded: .*Nowhere\/Land/);
    expect(status.scripts.find((s: { path: string }) => s.path === "f/x/b.ts").error).toMatch(/Nowhere\/Land/);
    expect(existsSync(join(root, ".sluice/s3/x/b/2026-05-01.json"))).toBe(false);
    const text = await done(spawnSluice(["pipeline", "status", "f/x"], root));
    expect(text.out).toContain("(1 script(s) not loaded, the others run)");
    expect(text.out).toMatch(/f\/x\/b\.ts .*\n\s+NOT LOADED: /);

    // A plan through the loaded scripts runs; one that needs the broken script is refused, saying why.
    const ok = await done(
      spawnSluice(["pipeline", "run", "f/x", "--to", "f/x/c.ts", "--partition", "2026-05-03"], root),
    );
    expect(ok.code, ok.out + ok.err).toBe(0);
    expect(existsSync(join(root, ".sluice/s3/x/c/2026-05-03.json"))).toBe(true);
    const refused = await done(spawnSluice(["pipeline", "run", "f/x", "--to", "f/x/b.ts"], root));
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/f\/x\/b\.ts is not loaded: .*Nowhere\/Land/);
  });
});

describe("the depth cap", () => {
  const chain = (n: number) =>
    Object.fromEntries(
      Array.from({ length: n }, (_, i) => [`f/long/s${i}.ts`, step(i === 0 ? null : `o${i - 1}`, `o${i}`)]),
    );

  it("pipeline graph warns about a chain longer than the cap; pipeline.json depthCap raises it", async () => {
    const root = makeProject(chain(8));
    const folder = PipelineCatalog.scan(root).folder("f/long")!;
    expect(folder.depthCap).toBe(5);
    const warn = folder.diagnostics.find((d) => d.code === "DEPTH_CAP_EXCEEDED");
    expect(warn).toMatchObject({ severity: "warning", script: "f/long/s0.ts" });
    expect(warn!.message).toContain("takes 7 hops, more than the cascade's depth cap of 5");
    expect(warn!.message).toContain("the cascade stops after f/long/s5.ts");
    const graph = await done(spawnSluice(["pipeline", "graph", "f/long"], root));
    expect(graph.code).toBe(0);
    expect(graph.out).toMatch(/warning: the chain f\/long\/s0\.ts → .* → f\/long\/s7\.ts takes 7 hops/);
    expect(graph.out).toContain('{"depthCap": 7} in f/long/pipeline.json');

    writeFileSync(join(root, "f/long/pipeline.json"), JSON.stringify({ depthCap: 7 }));
    const raised = PipelineCatalog.scan(root).folder("f/long")!;
    expect(raised.depthCap).toBe(7);
    expect(raised.diagnostics.filter((d) => d.code === "DEPTH_CAP_EXCEEDED")).toEqual([]);
    writeFileSync(join(root, "f/long/pipeline.json"), JSON.stringify({ depthCap: 0 }));
    const bad = PipelineCatalog.scan(root).folder("f/long")!;
    expect(bad.diagnostics.find((d) => d.code === "DEPTH_CAP_INVALID")!.message).toMatch(
      /depthCap in f\/long\/pipeline\.json must be a whole number from 1 to 100/,
    );
  });
});
