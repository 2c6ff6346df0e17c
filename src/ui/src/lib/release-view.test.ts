import { describe, expect, it } from "vitest";
import { changeSummary } from "./release-view";

const none = { added: [], changed: [], removed: [] };

describe("changeSummary", () => {
  it("counts each kind that changed", () => {
    expect(
      changeSummary({
        workflows: { added: ["a"], changed: ["b", "c"], removed: [] },
        schedules: none,
        triggers: { added: [], changed: [], removed: ["t"] },
        files: { added: ["a.ts"], changed: [], removed: [] },
      }),
    ).toBe("+1 ~2 workflows · −1 triggers · +1 files");
  });

  it("says so when nothing changed", () => {
    expect(changeSummary({ workflows: none, schedules: none, triggers: none, files: none })).toBe("no changes");
  });
});
