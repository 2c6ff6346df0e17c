import { describe, expect, it } from "vitest";
import { LaneModeError, LaneState } from "./lane-state.js";

describe("LaneState", () => {
  it("follows a worker from idle to running and back when it exits idle", () => {
    const s = new LaneState("default");
    expect(s.mode).toBe("idle");
    s.setStarting();
    s.setRunning();
    s.setExited();
    expect(s.mode).toBe("idle");
  });

  it("a startup crash stops the lane until it recovers", () => {
    const s = new LaneState("email");
    s.setStarting();
    s.setCrashed();
    expect(s.mode).toBe("crashed");
    expect(() => s.setStarting()).toThrow(LaneModeError);
    s.setRecovered();
    s.setStarting();
    expect(s.mode).toBe("starting");
  });

  it("refuses transitions from the wrong mode, naming the lane and the allowed modes", () => {
    const s = new LaneState("gpu");
    expect(() => s.setRunning()).toThrow(/lane "gpu": cannot mark running while idle \(only from starting\)/);
    s.setStarting();
    s.setRunning();
    expect(() => s.setCrashed()).toThrow(/cannot mark crashed while running/);
    expect(() => s.setRecovered()).toThrow(LaneModeError);
  });

  it("retires a worker on new code, and drains then stops on shutdown", () => {
    const s = new LaneState("default");
    s.setStarting();
    s.setRetired();
    expect(s.mode).toBe("idle");
    s.setStarting();
    s.setDraining();
    expect(() => s.setStarting()).toThrow(LaneModeError);
    s.setStopped();
    expect(s.mode).toBe("stopped");
    expect(() => s.setStopped()).toThrow(LaneModeError);
  });
});
