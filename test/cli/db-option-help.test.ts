/**
 * `--db`'s help names every place a command finds its database when `--db` is not given, in the
 * order `resolveProject` reads them: `$SLUICE_DATABASE_URL`, `$SLUICE_DATABASE`, `sluice.json`'s
 * `database`, then `.sluice/sluice.db` in the project folder (it used to name only the first and
 * the last). The real binary: the help text, and a project whose `sluice.json` names the database.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { finished, spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";

const FILES = {
  "sluice.json": JSON.stringify({ database: "data/app.db" }),
  "workflows/hi.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("hi", { handler: async () => "hi" });`,
};

describe("--db help", () => {
  it("lists $SLUICE_DATABASE and sluice.json's database, which the commands do read", async () => {
    const root = makeProject(FILES);
    for (const command of ["runs", "enqueue", "worker", "pull"]) {
      const help = await finished(spawnSluice([command, "--help"], root));
      expect(help.code).toBe(0);
      expect(help.out.replace(/\s+/g, " ")).toContain(
        "default $SLUICE_DATABASE_URL, else $SLUICE_DATABASE, else sluice.json's database, else .sluice/sluice.db in the project folder",
      );
    }
    expect((await finished(spawnSluice(["enqueue", "hi", "{}", "--id", "r1"], root))).code).toBe(0);
    expect(existsSync(join(root, "data", "app.db"))).toBe(true);
    expect(existsSync(join(root, ".sluice", "sluice.db"))).toBe(false);
    const runs = await finished(spawnSluice(["runs", "--json"], root));
    expect(runs.code).toBe(0);
    expect(JSON.parse(runs.out)).toMatchObject([{ id: "r1", workflow: "hi" }]);
  });
});
