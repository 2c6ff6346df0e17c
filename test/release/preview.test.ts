/** `sluice preview`: one run from the local files in a throwaway database, as the real binary. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { DOUBLE, FLOW, sluice } from "./fixtures.js";

describe("sluice preview", () => {
  it("runs a workflow as code with its __mod module once and prints timeline, logs and result; no database is left", async () => {
    const root = makeProject({
      "f/demo/flow.ts": FLOW,
      "f/demo/flow__mod/double.ts": DOUBLE.replace("return n * 2;", 'console.log("doubling", n);\n  return n * 2;'),
    });
    const r = await sluice(root, "preview", "f/demo/flow.ts", '{"n": 5}');
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("timeline of f/demo/flow (succeeded):");
    expect(r.out).toMatch(/task +\.\/double\.ts done \d+ ms → script:f\/demo\/flow__mod\/double/);
    expect(r.out).toContain("[f/demo/flow__mod/double] info doubling 5");
    expect(r.out).toContain('result:\n{\n  "doubled": 10,\n  "ms": 2000\n}');
    expect(existsSync(join(root, ".sluice", "sluice.db"))).toBe(false);
  }, 60_000);

  it("fails with a clear line for an unknown path and for a failing run", async () => {
    const root = makeProject({ "f/x/boom.ts": 'export async function main() {\n  throw new Error("kaput");\n}\n' });
    const unknown = await sluice(root, "preview", "f/x/nope");
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("f/x/nope is not a workflow or script");
    const boom = await sluice(root, "preview", "f/x/boom");
    expect(boom.code).toBe(1);
    expect(boom.err).toContain("run failed: kaput");
  }, 60_000);
});
