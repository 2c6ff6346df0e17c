import { describe, expect, it } from "vitest";
import {
  describeScheduleSync,
  keptForeign,
  planScheduleSync,
  type StoredSchedule,
  toScheduleOwner,
} from "./schedule-sync.js";

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

describe("keptForeign", () => {
  const stored = [at("py", "process", "0 * * * *"), at("file", "process"), at("mine", "process"), at("rel", "release")];
  const published = [
    { name: "py", source: null },
    { name: "file", source: "workflows/file.ts" },
    { name: "mine", source: null },
    { name: "rel", source: null },
  ];

  it("keeps process schedules of workflows this process does not serve that come from no module file", () => {
    expect(keptForeign(stored, published, new Set(["mine"]))).toEqual([
      { workflow: "py", cron: "0 * * * *", timezone: "UTC", nextAt: null },
    ]);
  });

  it("keeps nothing of a removed or unpublished workflow, or of one this process serves", () => {
    expect(keptForeign(stored, [{ name: "py", source: null, removedAt: 5 }], new Set())).toEqual([]);
    expect(keptForeign(stored, [], new Set())).toEqual([]);
    expect(keptForeign(stored, published, new Set(["py", "mine"]))).toEqual([]);
  });

  it("a kept entry leaves its schedule unwritten; a module file's schedule this process lacks is removed", () => {
    const entries = [entry("mine"), ...keptForeign(stored, published, new Set(["mine"]))];
    const plan = planScheduleSync(stored, entries, "process");
    expect(plan).toEqual({ remove: ["file"], upsert: [] });
  });
});

describe("describeScheduleSync", () => {
  it("names the schedules a sync removes or re-crons, with what they were", () => {
    const stored = [
      at("a", "process"),
      at("b", "process", "0 * * * *"),
      { ...at("c", "release"), timezone: "Europe/Paris" },
    ];
    const plan = planScheduleSync(stored, [entry("b", "*/5 * * * *"), entry("c"), entry("d")], "process");
    expect(describeScheduleSync(stored, plan)).toEqual([
      { workflow: "a", change: "removed", was: "* * * * *" },
      { workflow: "b", change: "changed", was: "0 * * * *", now: "*/5 * * * *" },
      { workflow: "c", change: "changed", was: "* * * * * Europe/Paris", now: "* * * * *" },
    ]);
  });

  it("says nothing when the folder's schedules are the stored ones", () => {
    const stored = [at("a", "process")];
    expect(describeScheduleSync(stored, planScheduleSync(stored, [entry("a")], "process"))).toEqual([]);
  });
});
