import { describe, expect, it } from "vitest";
import { countUpload, decodeTally, failUpload, type TriggerReport, withUploads } from "./state.js";

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

  it("keeps a refused call as the last error without counting it, the newer error shown", () => {
    const failed = failUpload(null, { at: 150, error: "the message is not JSON" });
    expect(failed).toEqual({ count: 0, lastError: "the message is not JSON", lastErrorAt: 150 });
    expect(decodeTally(JSON.stringify(failed))).toEqual(failed);
    const then = countUpload(failed, { at: 200, message: "b", runId: "r2" });
    expect(then).toMatchObject({ count: 1, lastRunId: "r2", lastError: "the message is not JSON" });
    const report: TriggerReport = { status: "running", holder: "h", updatedAt: 300, messages: 0 };
    expect(withUploads(report, failed)).toEqual({ ...report, lastError: "the message is not JSON", lastErrorAt: 150 });
    const later = { ...report, lastError: "broker down", lastErrorAt: 900 };
    expect(withUploads(later, then)).toMatchObject({ messages: 1, lastRunId: "r2", lastError: "broker down" });
  });
});
