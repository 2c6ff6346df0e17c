import { describe, expect, it } from "vitest";
import { startedBy } from "./started-by";

const run = { id: "r1", createdBy: null, payload: {}, parentId: null };

describe("startedBy", () => {
  it("names the person first", () => {
    expect(startedBy({ ...run, createdBy: "erin", id: "cron:x:1" })).toEqual({ label: "erin", person: true });
  });

  it("names the upstream script of a cascade, linked to its run", () => {
    const payload = {
      _sluice: { trigger: "cascade", upstream: { run: "up1", script: "f/lake/orders.sql", assets: [] } },
    };
    expect(startedBy({ ...run, payload })).toEqual({ label: "cascade from orders.sql", run: "up1" });
    expect(startedBy({ ...run, payload: { _sluice: { trigger: "cascade" } } })).toEqual({ label: "cascade" });
  });

  it("names schedules, triggers, joins and parents", () => {
    expect(startedBy({ ...run, id: "cron:nightly:2026-12-03T03:00:00.000Z" }).label).toBe("schedule");
    expect(startedBy({ ...run, id: "trigger:t1:abc" }).label).toBe("trigger");
    expect(startedBy({ ...run, payload: { _sluice: { trigger: "join" } } }).label).toBe("join (trigger all)");
    expect(startedBy({ ...run, payload: { _sluice: { trigger: "mqtt" } } }).label).toBe("MQTT trigger");
    expect(startedBy({ ...run, parentId: "p1" })).toEqual({ label: "parent run", run: "p1" });
  });

  it("gives — for a run it cannot place, whatever its payload holds", () => {
    for (const payload of [
      null,
      [1],
      "x",
      { _sluice: 3 },
      { _sluice: { trigger: 5 } },
      { _sluice: { trigger: "manual" } },
    ])
      expect(startedBy({ ...run, payload })).toEqual({ label: "—" });
  });
});
