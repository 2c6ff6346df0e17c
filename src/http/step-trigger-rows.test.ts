import { describe, expect, it } from "vitest";
import type { StepTriggerView } from "../pipeline/runtime/step-triggers.js";
import type { ScheduleRecord } from "../store/types.js";
import { stepTriggerRows } from "./step-trigger-rows.js";

const row = (script: string, schedule: StepTriggerView["schedule"]): StepTriggerView => ({
  kind: schedule ? "schedule" : "webhook",
  folder: "f/p",
  script,
  detail: "",
  configuredIn: "f/p/pipeline.json",
  schedule,
});
const kept = (workflow: string, nextAt: number | null, paused: boolean) =>
  ({
    workflow,
    cron: "0 3 * * *",
    timezone: "UTC",
    nextAt,
    paused,
    lastFiredAt: null,
    owner: "process",
  }) as ScheduleRecord;

describe("stepTriggerRows", () => {
  const now = Date.UTC(2026, 4, 16, 10, 0);
  it("takes a schedule's next run from the scheduler's record, else from its cron in its time zone", () => {
    const rows = stepTriggerRows(
      [
        row("f/p/kept", { cron: "0 3 * * *", timezone: "UTC" }),
        row("f/p/paris", { cron: "0 9 * * *", timezone: "Europe/Paris" }),
        row("f/p/paused", { cron: "0 3 * * *", timezone: "UTC" }),
        row("f/p/hook", null),
      ],
      [kept("f/p/kept", Date.UTC(2026, 4, 17, 3), false), kept("f/p/paused", Date.UTC(2026, 4, 17, 3), true)],
      now,
    );
    expect(rows.map((r) => [r.script, r.nextAt, r.paused])).toEqual([
      ["f/p/kept", "2026-05-17T03:00:00.000Z", false],
      ["f/p/paris", "2026-05-17T07:00:00.000Z", false],
      ["f/p/paused", null, true],
      ["f/p/hook", null, false],
    ]);
  });
});
