import { describe, expect, it } from "vitest";
import type { ApiRunDetail } from "../../../http/api-types";
import type { WorkflowDiagram } from "../../../diagram/model";
import { nodeStates } from "./diagram-status";

const diagram = {
  nodes: [
    { id: "start", kind: "start", label: "start" },
    { id: "step:run_id", kind: "step", key: "run_id", label: "run_id" },
    { id: "parallel:1", kind: "parallel", label: "parallel" },
    {
      id: "task:fetchPage",
      kind: "task",
      key: "fetchPage",
      label: "fetchPage",
      parent: "parallel:1",
      repeated: true,
      approximateKey: true,
    },
    { id: "approval:waitForApproval", kind: "approval", key: "waitForApproval", label: "waitForApproval" },
    { id: "task:saveResults", kind: "task", key: "saveResults", label: "saveResults" },
    { id: "end", kind: "end", label: "end" },
  ],
  edges: [],
} as unknown as WorkflowDiagram;

describe("nodeStates", () => {
  it("colours nodes by their steps, tasks by their child runs, fan-outs by every call", () => {
    const detail = {
      run: { status: "waiting", startedAt: "x", finishedAt: null },
      steps: [
        { key: "run_id", kind: "step", status: "done" },
        { key: "fetchPage", kind: "task", status: "done", childId: "c1" },
        { key: "fetchPage#2", kind: "task", status: "pending", childId: "c2" },
        { key: "fetchPage#3", kind: "task", status: "done", childId: "c3" },
        { key: "waitForApproval", kind: "approval", status: "pending" },
      ],
      children: [
        { id: "c1", status: "succeeded" },
        { id: "c2", status: "running" },
        { id: "c3", status: "succeeded" },
      ],
    } as unknown as ApiRunDetail;
    const s = nodeStates(diagram, detail, Date.now());
    expect(Object.fromEntries([...s].map(([id, st]) => [id, `${st.status}×${st.count}`]))).toEqual({
      start: "succeeded×1",
      "step:run_id": "succeeded×1",
      "task:fetchPage": "running×3",
      "approval:waitForApproval": "waiting×1",
    });
  });

  it("marks the end with the run's final status and failed steps as failed", () => {
    const detail = {
      run: { status: "failed", startedAt: "x", finishedAt: "y" },
      steps: [{ key: "saveResults", kind: "task", status: "error", childId: "c" }],
      children: [{ id: "c", status: "failed" }],
    } as unknown as ApiRunDetail;
    const s = nodeStates(diagram, detail, Date.now());
    expect(s.get("task:saveResults")!.status).toBe("failed");
    expect(s.get("end")!.status).toBe("failed");
  });

  it("matches a key computed by a template literal to the steps it became (any text for each ${…})", () => {
    const waits = {
      nodes: [
        { id: "w", kind: "wait", key: "approval:order-${payload.orderId}", label: "w", approximateKey: true },
        { id: "s", kind: "step", key: "load-${ids.map((i) => `${i}`).join()}", label: "s", approximateKey: true },
        { id: "other", kind: "wait", key: "refund-${payload.orderId}", label: "other", approximateKey: true },
      ],
      edges: [],
    } as unknown as WorkflowDiagram;
    const detail = {
      run: { status: "waiting", startedAt: "x", finishedAt: null },
      steps: [
        { key: "load-1,2", kind: "step", status: "done" },
        { key: "approval:order-ord_1", kind: "wait", status: "pending" },
      ],
      children: [],
    } as unknown as ApiRunDetail;
    const s = nodeStates(waits, detail, Date.now());
    expect(s.get("w")).toEqual({ status: "waiting", count: 1 });
    expect(s.get("s")).toEqual({ status: "succeeded", count: 1 });
    expect(s.has("other")).toBe(false);
  });
});
