/**
 * `sluice dev`'s hint when a project has nothing to run: printed for a project with no modules
 * and no pipelines, not for one of pipeline scripts only (DuckDB SQL has no module to load), nor
 * for one whose workflows come from a worker command of sluice.json (a Go worker's project has no
 * module: the hint told its developer to add workflows/hello.ts).
 */
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";

const HINT = "no workflow modules found under";

/** Starts `sluice dev` in `root` until it serves, then stops it; @returns its output. */
async function devOutput(root: string): Promise<string> {
  const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root);
  try {
    await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
  } finally {
    dev.proc.kill("SIGTERM");
    await dev.exited;
  }
  return dev.output();
}

describe("sluice dev's empty-project hint", () => {
  it("is printed for a project with nothing to run", async () => {
    const out = await devOutput(makeProject({ "sluice.json": "{}" }));
    expect(out).toContain(HINT);
  }, 60_000);

  it("is not printed for a project of SQL pipeline scripts only, whose graph it prints instead", async () => {
    const root = makeProject({
      "sluice.json": "{}",
      "f/sales/totals.sql": "-- pipeline\n-- materialize ducklake://main/totals\nSELECT 1 AS n\n",
    });
    const out = await devOutput(root);
    expect(out).toContain("pipeline f/sales: 1 script(s)");
    expect(out).not.toContain(HINT);
  }, 60_000);

  it("is not printed for a project whose workflows come from a worker command (a Go worker)", async () => {
    // The command stands in for `go run ./cmd/worker` (the hint is decided before any worker registers).
    const root = makeProject({
      "sluice.json": JSON.stringify({ workers: [{ command: "exec sleep 60", group: "go" }] }),
    });
    const out = await devOutput(root);
    expect(out).toMatch(/worker command \[go\]: exec sleep 60 \(pid \d+\)/);
    expect(out).not.toContain(HINT);
  }, 60_000);
});
