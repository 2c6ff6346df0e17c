/**
 * Tako's status names on the command line: `sluice runs --status dead` lists the runs
 * Sluice calls `failed`, as the real binary against runs a separate worker process ran.
 */
import { describe, expect, it } from "vitest";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";

const FILES = {
  "workflows/boom.ts": `import { defineWorkflow } from "tako.sh";
export default defineWorkflow("boom", { retries: 0, handler: async () => { throw new Error("kaput"); } });`,
  "workflows/fine.ts": `import { defineWorkflow } from "tako.sh";
export default defineWorkflow("fine", { handler: async () => "ok" });`,
};

async function sluice(root: string, ...args: string[]) {
  const p = spawnSluice(args, root);
  const code = await p.exited;
  return { code, out: p.output() };
}

describe("sluice runs --status with Tako's names", () => {
  it("dead lists failed runs only; the statuses printed stay Sluice's; an unknown name is one clear line", async () => {
    const root = makeProject(FILES);
    expect((await sluice(root, "enqueue", "boom", "{}", "--id", "b1")).code).toBe(0);
    expect((await sluice(root, "enqueue", "fine", "{}", "--id", "f1")).code).toBe(0);
    const worker = await sluice(root, "worker", "--exit-when-idle", "--idle", "200ms");
    expect(worker.code).toBe(0);

    const dead = await sluice(root, "runs", "--status", "dead", "--json");
    expect(dead.code).toBe(0);
    expect(JSON.parse(dead.out)).toMatchObject([{ id: "b1", workflow: "boom", status: "failed" }]);
    expect(JSON.parse(dead.out)).toHaveLength(1);

    const table = await sluice(root, "runs", "--status", "dead,succeeded");
    expect(table.code).toBe(0);
    expect(table.out).toMatch(/b1/);
    expect(table.out).toMatch(/f1/);
    expect(table.out).toMatch(/failed/);

    const bad = await sluice(root, "runs", "--status", "zombie");
    expect(bad.code).toBe(1);
    expect(bad.out.trim().split("\n")).toHaveLength(1);
    expect(bad.out).toMatch(
      /unknown status "zombie" for --status: use pending, running, waiting, succeeded, failed, cancelled, or Tako's dead \(= failed\)/,
    );

    const help = await sluice(root, "runs", "--help");
    expect(help.out).toMatch(/Tako.s dead \(=\s+failed\)/);
  });
});
