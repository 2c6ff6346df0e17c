/**
 * User strings never reach the terminal raw: a run id with an ESC sequence (window
 * title) and a newline, and a log line that clears the screen, are printed escaped by
 * `sluice enqueue`, `sluice worker`, `sluice runs` and `sluice show` (child processes).
 */
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";

const FILES = {
  "workflows/noisy.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("noisy", {
  retries: 0,
  handler: async (_p, ctx) => {
    await ctx.run("shout", () => console.log("\\u001b[2Jcleared\\n✓ forged line"));
    throw new Error("bad\\u001b]0;title\\u0007 news");
  },
});`,
};

const EVIL = "evil\u001b]0;owned\u0007\nforged";
// eslint-disable-next-line no-control-regex -- matching control characters is the point here
const ESC = /[\u001b\u0007]/;

async function sluice(root: string, ...args: string[]) {
  const p = spawnSluice(args, root);
  const code = await p.exited;
  return { code, out: p.output() };
}

describe("control characters in user strings", () => {
  it("are escaped in enqueue, worker, runs and show output", async () => {
    const root = makeProject(FILES, "sluice-esc-");
    const enq = await sluice(root, "enqueue", "noisy", "--id", EVIL);
    expect(enq.code).toBe(0);
    expect(enq.out).toBe("evil\\x1b]0;owned\\x07\\nforged\n");

    const worker = await sluice(root, "worker", "--exit-when-idle", "--idle", "300ms");
    expect(worker.code).toBe(0);
    expect(worker.out).not.toMatch(ESC);
    expect(worker.out).toContain("▶ noisy evil\\x1b]0;owned\\x07\\nforged attempt 1/1");
    expect(worker.out).toContain("failed");
    expect(worker.out).toContain("bad\\x1b]0;title\\x07 news");

    const runs = await sluice(root, "runs");
    expect(runs.code).toBe(0);
    expect(runs.out).not.toMatch(ESC);
    // Header plus one row: the newline in the id did not break the table.
    expect(runs.out.trimEnd().split("\n")).toHaveLength(2);
    expect(runs.out).toMatch(/^evil\\x1b\]0;owned\\x07\\nforged\s+noisy\s+✗ failed/m);

    const show = await sluice(root, "show", EVIL);
    expect(show.code).toBe(0);
    expect(show.out).not.toMatch(ESC);
    expect(show.out).toContain("run       evil\\x1b]0;owned\\x07\\nforged");
    expect(show.out).toContain("\\x1b[2Jcleared");
    // A log line's own newline stays, indented so it cannot pass for a line of ours.
    expect(show.out).toMatch(/\n {4}✓ forged line/);
    expect(show.out).not.toMatch(/^✓ forged line/m);

    const missing = await sluice(root, "show", "nope\u001b[31m");
    expect(missing.code).toBe(1);
    expect(missing.out).not.toMatch(ESC);
    expect(missing.out).toContain("nope\\u001b[31m");
  }, 60_000);
});
