import { describe, expect, it } from "vitest";
import { lanesCheck, schedulerCheck, workerCommandsCheck } from "./readiness.js";

describe("readiness checks", () => {
  it("the scheduler check fails only while leadership is unknown", () => {
    expect(schedulerCheck("leader")).toEqual({ ok: true, detail: "leader" });
    expect(schedulerCheck("standby")).toEqual({ ok: true, detail: "standby" });
    expect(schedulerCheck(null).ok).toBe(true);
    const unknown = schedulerCheck("unknown");
    expect(unknown.ok).toBe(false);
    expect(unknown.detail).toMatch(/leadership unknown/);
  });

  it("the lanes check names the crashed worker groups", () => {
    expect(lanesCheck(null).ok).toBe(true);
    expect(
      lanesCheck([{ group: "a", mode: "running", pid: 1, draining: [], error: null, command: null, workflows: null }])
        .ok,
    ).toBe(true);
    const bad = lanesCheck([
      { group: "a", mode: "idle", pid: null, draining: [], error: null, command: null, workflows: null },
      {
        group: "etl",
        mode: "crashed",
        pid: null,
        draining: [],
        error: "its worker could not be started: EACCES",
        command: null,
        workflows: null,
      },
    ]);
    expect(bad.ok).toBe(false);
    expect(bad.detail).toContain("etl (its worker could not be started: EACCES)");
    expect(bad.detail).not.toMatch(/\ba\b,/);
    // A worker command's lane that crashed counts the same (an idle one, whose process exited, does not).
    const command = lanesCheck([
      {
        group: "command:py",
        mode: "idle",
        pid: null,
        draining: [],
        error: null,
        command: "python3 w.py",
        workflows: [],
      },
      {
        group: "command:go",
        mode: "crashed",
        pid: null,
        draining: [],
        error: "its command exited with code 1 before claiming any run: no DATABASE_URL",
        command: "go run ./cmd/worker",
        workflows: ["charge"],
      },
    ]);
    expect(command.ok).toBe(false);
    expect(command.detail).toContain(
      "command:go (its command exited with code 1 before claiming any run: no DATABASE_URL)",
    );
    expect(command.detail).not.toContain("command:py");
  });

  it("the workers check joins the failing worker commands' details", () => {
    expect(workerCommandsCheck(null)).toEqual({
      ok: true,
      detail: "no always-on worker commands started by this process",
    });
    expect(workerCommandsCheck([{ label: "go", ok: true, detail: "running" }])).toEqual({
      ok: true,
      detail: "1 worker command(s), none failing",
    });
    const bad = workerCommandsCheck([
      { label: "go", ok: false, detail: "worker command [go] (go run .) keeps exiting" },
      { label: "py", ok: true, detail: "running" },
    ]);
    expect(bad).toEqual({ ok: false, detail: "worker command [go] (go run .) keeps exiting" });
  });
});
