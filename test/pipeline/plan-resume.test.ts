/**
 * The resume hint of a failed plan, as users run it: `sluice pipeline run` fails at one
 * step, prints `sluice pipeline resume <plan id>`, and that very command runs every step
 * that did not run, once, for the same partition.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { type SluiceProcess, spawnSluice } from "../helpers/processes.js";

function step(name: string, input: string | null, output: string): string {
  return `// pipeline
${input ? `// on s3://shop/${input}/{partition}.json\n` : "// partitioned daily\n"}import * as wmill from 'windmill-client';
import { appendFileSync, mkdirSync } from 'node:fs';
export async function main(partition: string) {
  if (process.env.FAIL_STEP === '${name}') throw new Error('${name} broke');
  await wmill.writeS3File({ s3: \`shop/${output}/\${partition}.json\` }, '{}');
  mkdirSync(process.env.COUNT_DIR!, { recursive: true });
  appendFileSync(process.env.COUNT_DIR + '/${name}-' + partition, 'x');
}
`;
}

const SHOP = {
  "f/shop/a.ts": step("a", null, "a"),
  "f/shop/b.ts": step("b", "a", "b"),
  "f/shop/c.ts": step("c", "b", "c"),
  "f/shop/d.ts": step("d", "c", "d"),
};

async function done(p: SluiceProcess) {
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

describe("sluice pipeline resume <plan id>", { timeout: 60_000 }, () => {
  it("a failed plan prints the resume command, which runs every step that did not run", async () => {
    const root = makeProject(SHOP);
    const dir = join(root, "counts");
    const failed = await done(
      spawnSluice(["pipeline", "run", "f/shop", "--partition", "2026-06-02"], root, { COUNT_DIR: dir, FAIL_STEP: "b" }),
    );
    expect(failed.code).toBe(1);
    const m = /run 3 step\(s\) again with: (sluice pipeline resume (\S+))/.exec(failed.out);
    expect(m, failed.out).not.toBeNull();
    const planId = m![2]!;
    expect(failed.out).toContain(`plan ${planId} failed`);
    expect(failed.out).toContain("not run: f/shop/c.ts, f/shop/d.ts");

    const dry = await done(spawnSluice(["pipeline", "resume", planId, "--dry-run", "--json"], root));
    expect(dry.code, dry.err).toBe(0);
    expect(JSON.parse(dry.out)).toMatchObject({
      done: ["f/shop/a.ts"],
      steps: ["f/shop/b.ts", "f/shop/c.ts", "f/shop/d.ts"],
      partition: "2026-06-02",
    });

    const resumed = await done(spawnSluice(m![1]!.split(" ").slice(1), root, { COUNT_DIR: dir }));
    expect(resumed.code, resumed.out + resumed.err).toBe(0);
    expect(resumed.out).toMatch(/succeeded for partition 2026-06-02/);
    expect(resumed.err).toContain("already done: f/shop/a.ts");
    const counts = Object.fromEntries(
      readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), "utf8").length] as const),
    );
    expect(counts).toEqual({ "a-2026-06-02": 1, "b-2026-06-02": 1, "c-2026-06-02": 1, "d-2026-06-02": 1 });
    expect(existsSync(join(root, ".sluice", "s3", "shop", "d", "2026-06-02.json"))).toBe(true);

    const again = await done(spawnSluice(["pipeline", "resume", planId], root, { COUNT_DIR: dir }));
    expect(again.code).toBe(0);
    expect(again.out).toContain("nothing to resume");
    const bad = await done(spawnSluice(["pipeline", "resume", "nope"], root));
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/nope is not a pipeline plan run/);
  });
});
