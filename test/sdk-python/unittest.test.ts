/**
 * The Python worker-protocol client's own unit tests (sdk-python/tests, stdlib `unittest`
 * against a fake server), run as part of npm test. The same client against a real server is
 * the conformance suite's "Python SDK" target (test/conformance/).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "../helpers/project.js";

describe("Python SDK (wmill.worker)", () => {
  it("python3 -m unittest passes", () => {
    const run = spawnSync("python3", ["-m", "unittest", "discover", "-s", "tests", "-t", "."], {
      cwd: join(REPO, "sdk-python"),
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const ran = /Ran (\d+) tests?/.exec(run.stderr);
    expect(Number(ran?.[1] ?? 0), run.stderr).toBeGreaterThanOrEqual(6);
    expect(run.stderr).toMatch(/\nOK\s*$/);
  }, 90_000);
});
