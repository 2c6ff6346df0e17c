import { describe, expect, it } from "vitest";
import { scheduleRowsOf } from "./schedule-rows.js";
import { parseConfigTriggers } from "./spec.js";

const row = (extra: Record<string, unknown> = {}) => ({
  name: "nightly",
  kind: "schedule",
  target: "f/ops/report",
  cron: "0 6 * * *",
  ...extra,
});

describe("sluice.json schedule rows", () => {
  it("are a runnable's cron, not a consumed trigger", () => {
    const rows = [
      row({ timezone: "Europe/Paris" }),
      { name: "m", kind: "mqtt", target: "x", url: "mqtt://h", topic: "t" },
    ];
    expect(parseConfigTriggers(rows).map((t) => t.id)).toEqual(["m"]);
    expect([...scheduleRowsOf(rows)]).toEqual([["f/ops/report", { cron: "0 6 * * *", timezone: "Europe/Paris" }]]);
  });

  it("refuses a bad cron, time zone or option, naming the row", () => {
    expect(() => parseConfigTriggers([row({ cron: "0 6 * *" })])).toThrow(
      /triggers\[0\] \(nightly\): invalid schedule/,
    );
    expect(() => parseConfigTriggers([row({ timezone: "Mars/Olympus" })])).toThrow(/unknown time zone "Mars\/Olympus"/);
    expect(() => parseConfigTriggers([row({ topic: "x" })])).toThrow(/takes "cron" and "timezone" only, not "topic"/);
    expect(() => parseConfigTriggers([row({ name: "a" }), row({ name: "a" })])).toThrow(/used by another trigger/);
  });
});
