import { describe, expect, it } from "vitest";
import { analyzeFixture, chain, edgeList, nodeById } from "./testkit.js";

describe("seed 000: approvals", () => {
  it("waitForApproval without a form, then a rejection branch", () => {
    const d = analyzeFixture("approval");
    expect(edgeList(d)).toEqual([
      "start -> approval:waitForApproval",
      "approval:waitForApproval -> branch:1",
      "branch:1 -[true]-> return:1",
      "branch:1 -[false]-> task:deploy",
      "task:deploy -> return:2",
      "return:1 -> end",
      "return:2 -> end",
    ]);
    const approval = nodeById(d, "approval:waitForApproval");
    expect(approval).toMatchObject({ kind: "approval", label: "approval", key: "waitForApproval" });
    expect(approval.options).toEqual({ timeout: 3600, selfApproval: false });
  });

  it("waitForApproval with form fields passed directly as keys", () => {
    const d = analyzeFixture("approval-form");
    expect(edgeList(d)).toEqual(chain("start", "approval:waitForApproval", "return:1", "end"));
    expect(nodeById(d, "approval:waitForApproval").options).toEqual({
      timeout: 7200,
      form: {
        reason: { type: "string", description: "Approval reason" },
        environment: { type: "string", enum: ["staging", "production"] },
      },
    });
  });

  it("waitForApproval with a full JSON Schema form", () => {
    const d = analyzeFixture("approval-schema");
    expect(nodeById(d, "approval:waitForApproval").options).toEqual({
      form: {
        type: "object",
        properties: { reason: { type: "string" }, environment: { type: "string", enum: ["staging", "production"] } },
        required: ["reason"],
        order: ["reason", "environment"],
      },
    });
  });

  it("getResumeUrls inside a step, a notify step, then the approval", () => {
    const d = analyzeFixture("resume-urls");
    expect(edgeList(d)).toEqual(
      chain("start", "step:get_urls", "step:notify", "approval:waitForApproval", "return:1", "end"),
    );
    expect(nodeById(d, "approval:waitForApproval").options).toEqual({ timeout: 86400 });
    expect(d.warnings).toEqual([]);
  });

  it("Deployment gate: two early returns, staging, notify steps, approval, production", () => {
    const d = analyzeFixture("deployment-gate");
    expect(edgeList(d)).toEqual([
      "start -> task:runTests",
      "task:runTests -> branch:1",
      "branch:1 -[true]-> return:1",
      "branch:1 -[false]-> task:deployToStaging",
      ...chain(
        "task:deployToStaging",
        "step:approval_urls",
        "step:notify_team",
        "approval:waitForApproval",
        "branch:2",
      ),
      "branch:2 -[true]-> return:2",
      "branch:2 -[false]-> task:deployToProduction",
      "task:deployToProduction -> return:3",
      "return:1 -> end",
      "return:2 -> end",
      "return:3 -> end",
    ]);
    expect(nodeById(d, "branch:1")).toMatchObject({ kind: "branch", label: "testResults.failed > 0", line: 23 });
    // Only one arm continues after each `if`, so no merge node is needed.
    expect(d.nodes.some((n) => n.kind === "merge")).toBe(false);
  });
});
