import { describe, expect, it } from "vitest";
import { isInternalWorkflow } from "./internal-workflows.js";

describe("isInternalWorkflow", () => {
  it("is true for Sluice's own workflows only", () => {
    expect(isInternalWorkflow("sluice:pipeline-plan")).toBe(true);
    expect(isInternalWorkflow("sluice:pipeline-backfill")).toBe(true);
    expect(isInternalWorkflow("hello")).toBe(false);
    expect(isInternalWorkflow("f/sluice/plan")).toBe(false);
  });
});
