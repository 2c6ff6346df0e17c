import { describe, expect, it } from "vitest";
import { fireTimesBetween, nextFireAfter, parseSchedule } from "./cron.js";

describe("cron schedules", () => {
  it("fires on weekdays at 09:00 in the given time zone (DST-aware)", () => {
    const s = parseSchedule({ cron: "0 9 * * 1-5", timezone: "Europe/Paris" });
    // Sunday 29 Nov 2026 → Monday 30 Nov 09:00 CET = 08:00Z
    expect(new Date(nextFireAfter(s, Date.parse("2026-11-29T12:00:00Z"))!).toISOString()).toBe(
      "2026-11-30T08:00:00.000Z",
    );
    // Summer time: Monday 6 Jul 2026 09:00 CEST = 07:00Z
    expect(new Date(nextFireAfter(s, Date.parse("2026-07-05T12:00:00Z"))!).toISOString()).toBe(
      "2026-07-06T07:00:00.000Z",
    );
  });
  it("lists every tick in a window once", () => {
    const s = parseSchedule("*/15 * * * *");
    const ticks = fireTimesBetween(s, Date.parse("2026-01-01T00:00:00Z"), Date.parse("2026-01-01T01:00:00Z"));
    expect(ticks.map((t) => new Date(t).toISOString().slice(11, 16))).toEqual(["00:15", "00:30", "00:45", "01:00"]);
  });
  it("rejects six-field, malformed and unknown-zone schedules", () => {
    expect(() => parseSchedule("0 0 9 * * 1")).toThrow(/five-field cron/);
    expect(() => parseSchedule("61 * * * *")).toThrow(/invalid cron expression/);
    expect(() => parseSchedule({ cron: "* * * * *", timezone: "Mars/Olympus" })).toThrow(
      /unknown time zone "Mars\/Olympus"/,
    );
  });
});
