import { describe, expect, it } from "vitest";
import { countUpload, decodeTally, type TriggerReport, withUploads } from "./state.js";

describe("upload tally", () => {
  it("counts uploads and adds them to the consumer's report, keeping the newer last message", () => {
    const one = countUpload(null, { at: 100, message: "a", runId: "r1" });
    const two = countUpload(one, { at: 200, message: "b", runId: "r2" });
    expect(two).toEqual({ count: 2, lastMessageAt: 200, lastMessage: "b", lastRunId: "r2" });
    expect(decodeTally(JSON.stringify(two))).toEqual(two);
    expect(decodeTally("{")).toBeNull();
    const report: TriggerReport = { status: "running", holder: "h", updatedAt: 300, messages: 0 };
    expect(withUploads(report, two)).toMatchObject({ status: "running", messages: 2, lastRunId: "r2" });
    const newer = { ...report, messages: 1, lastMessageAt: 900, lastMessage: "m", lastRunId: "r9" };
    expect(withUploads(newer, two)).toMatchObject({ messages: 3, lastRunId: "r9" });
    expect(withUploads(report, null)).toBe(report);
    expect(withUploads(null, two)).toMatchObject({ messages: 2, lastRunId: "r2" });
  });
});
