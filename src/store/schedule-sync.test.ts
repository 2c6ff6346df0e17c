import { describe, expect, it } from "vitest";
import { planScheduleSync, type StoredSchedule, toScheduleOwner } from "./schedule-sync.js";

const at = (workflow: string, owner: StoredSchedule["owner"], cron = "* * * * *"): StoredSchedule => ({
  workflow,
  cron,
  timezone: "UTC",
  owner,
});
const entry = (workflow: string, cron = "* * * * *") => ({ workflow, cron, timezone: "UTC", nextAt: 5 });

describe("planScheduleSync", () => {
  it("removes only the owner's schedules it no longer lists", () => {
    const plan = planScheduleSync(
      [at("a", "release"), at("b", "process"), at("c", "release")],
      [entry("c")],
      "release",
    );
    expect(plan.remove).toEqual(["a"]);
    expect(plan.upsert).toEqual([]);
  });

  it("leaves an unchanged schedule of the same owner unwritten and writes a changed one with a new tick", () => {
    const plan = planScheduleSync(
      [at("a", "process"), at("b", "process")],
      [entry("a"), entry("b", "0 * * * *")],
      "process",
    );
    expect(plan.upsert).toEqual([{ ...entry("b", "0 * * * *"), keepNext: false }]);
  });

  it("takes over another owner's schedule, keeping its next tick when the cron is the same", () => {
    const plan = planScheduleSync(
      [at("a", "process"), at("b", "process")],
      [entry("a"), entry("b", "0 * * * *")],
      "release",
    );
    expect(plan.remove).toEqual([]);
    expect(plan.upsert).toEqual([
      { ...entry("a"), keepNext: true },
      { ...entry("b", "0 * * * *"), keepNext: false },
    ]);
  });

  it("adds new schedules", () => {
    expect(planScheduleSync([], [entry("x")], "release").upsert).toEqual([{ ...entry("x"), keepNext: false }]);
  });
});

describe("toScheduleOwner", () => {
  it("reads a stored owner column: release, else process", () => {
    expect(toScheduleOwner("release")).toBe("release");
    expect(toScheduleOwner("process")).toBe("process");
    expect(toScheduleOwner("")).toBe("process");
  });
});
