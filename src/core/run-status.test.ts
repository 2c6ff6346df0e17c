import { describe, expect, it } from "vitest";
import { aliasesOf, describeStatusNames, parseStatusList, resolveStatusName, RUN_STATUSES } from "./run-status.js";
import { parseStatusFilter } from "./status-filter.js";

describe("run status names", () => {
  it("resolves Sluice's statuses to themselves and Tako's dead to failed", () => {
    for (const s of RUN_STATUSES) expect(resolveStatusName(s)).toBe(s);
    expect(resolveStatusName("dead")).toBe("failed");
    expect(resolveStatusName(" Dead ")).toBe("failed");
    expect(resolveStatusName("done")).toBeNull();
    expect(resolveStatusName("constructor")).toBeNull();
    expect(resolveStatusName("")).toBeNull();
  });
  it("keeps Sluice's own statuses: no alias renames one of them", () => {
    expect(RUN_STATUSES).toEqual(["pending", "running", "waiting", "succeeded", "failed", "cancelled"]);
    expect(aliasesOf("failed")).toEqual(["dead"]);
    expect(aliasesOf("pending")).toEqual([]);
  });
  it("parses a list without repeats and reports the first unknown name", () => {
    expect(parseStatusList("dead,succeeded,failed")).toEqual({ ok: true, statuses: ["failed", "succeeded"] });
    expect(parseStatusList("running, nope,dead")).toEqual({ ok: false, unknown: "nope" });
    expect(parseStatusList("succeeded,")).toEqual({ ok: false, unknown: "" });
  });
  it("throws one INVALID_STATUS error naming the field and every accepted name", () => {
    expect(parseStatusFilter("dead", "--status")).toEqual(["failed"]);
    expect(() => parseStatusFilter("done", "--status")).toThrow(
      'unknown status "done" for --status: use pending, running, waiting, succeeded, failed, cancelled, or Tako\'s dead (= failed), comma-separated',
    );
    expect(() => parseStatusFilter("", "status")).toThrow(/unknown status \(empty\) for status/);
    expect(describeStatusNames()).toContain("dead (= failed)");
  });
});
