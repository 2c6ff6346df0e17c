import { describe, expect, it } from "vitest";
import type { WorkflowDiagram } from "./model.js";
import { validateDiagram } from "./validate.js";

function diagram(nodes: WorkflowDiagram["nodes"], edges: WorkflowDiagram["edges"]): WorkflowDiagram {
  return { version: 1, fileName: "x.ts", workflow: null, nodes, edges, warnings: [] };
}

const start = { id: "start", kind: "start", label: "start", line: 1, column: 1 } as const;
const end = { id: "end", kind: "end", label: "end", line: 9, column: 1 } as const;

describe("validateDiagram", () => {
  it("accepts start → end", () => {
    expect(validateDiagram(diagram([start, end], [{ from: "start", to: "end" }]))).toEqual([]);
  });

  it("reports cycles, dead ends, unreachable nodes, bad parents and keys", () => {
    const a = { id: "task:a", kind: "task", label: "a", line: 2, column: 1, parent: "step:b" } as const;
    const b = { id: "step:b", kind: "step", label: "b", key: "b", line: 3, column: 1 } as const;
    const problems = validateDiagram(
      diagram(
        [start, a, b, end],
        [
          { from: "start", to: "end" },
          { from: "task:a", to: "step:b" },
          { from: "step:b", to: "task:a" },
          { from: "start", to: "nowhere" },
        ],
      ),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        "edge start → nowhere names a missing node",
        "task:a is not reachable from start",
        "end is not reachable from task:a",
        "task:a has parent step:b, which is not a loop or dynamic parallel node",
        "task:a: only primitives carry a key",
        "the edges contain a cycle",
      ]),
    );
  });
});
