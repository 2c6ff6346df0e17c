import { describe, expect, it } from "vitest";
import { checkScheduleRowTargets, scheduleRowProblems, scheduleRowsOf } from "./schedule-rows.js";
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

  it("finds rows whose loaded target requires parameters; unloaded targets and other kinds are not judged", () => {
    const runnables = [
      { name: "f/ops/report", params: { names: ["day", "limit"], required: ["day"] } },
      { name: "f/ops/free", params: { names: ["limit"], required: [] } },
      { name: "orders", params: null },
    ];
    const rows = [
      row(),
      row({ name: "free", target: "f/ops/free" }),
      row({ name: "wf", target: "orders" }),
      row({ name: "later", target: "f/ops/not-loaded" }),
      { name: "hook", kind: "webhook", target: "f/ops/report" },
    ];
    expect(scheduleRowProblems(rows, runnables)).toEqual([
      "sluice.json triggers[0] (nightly): schedule rows fire with an empty payload, but f/ops/report requires day; give it a default in its code, or start it another way (a webhook row, POST /api/runs)",
    ]);
    expect(() => checkScheduleRowTargets(rows, runnables)).toThrow(/triggers\[0\] \(nightly\).*requires day/);
    expect(() => checkScheduleRowTargets(rows.slice(1), runnables)).not.toThrow();
    expect(scheduleRowProblems(undefined, runnables)).toEqual([]);
  });
});
