/** Bad lane flags: one clear line, non-zero exit, nothing started. Real binary. */
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { cli, LANE_WORKFLOWS } from "./fixtures.js";

describe("lane flags", () => {
  const root = makeProject(LANE_WORKFLOWS);

  it("refuses an unknown --workers mode", async () => {
    const server = await cli(["server", "--port", "0", "--workers", "threads"], root);
    expect(server.code).toBe(1);
    expect(server.out).toMatch(/^sluice: --workers "threads" is not one of separate, none$/m);
    const dev = await cli(["dev", ".", "--port", "0", "--workers", "none"], root);
    expect(dev.code).toBe(1);
    expect(dev.out).toMatch(/^sluice: --workers "none" is not one of inline, separate$/m);
  }, 60_000);

  it("refuses a bad --lane-idle", async () => {
    const r = await cli(["server", "--port", "0", "--lane-idle", "soon"], root);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/--lane-idle "soon" is not a duration/);
  }, 60_000);

  it("a worker refuses a --from-build file that is not a manifest", async () => {
    const r = await cli(["worker", "--from-build", "workflows/hello.ts"], root);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/--from-build workflows\/hello.ts cannot be read .*start the worker without --from-build/);
  }, 60_000);
});
