import { describe, expect, it } from "vitest";
import { DiagnosticSink, formatDiagnostic, hasErrors } from "./diagnostics.js";

describe("diagnostics", () => {
  it("collects warnings and errors in order", () => {
    const sink = new DiagnosticSink();
    sink.warn(3, "A", "ignored");
    sink.error(1, "B", "broken");
    expect(sink.items).toEqual([
      { severity: "warning", line: 3, code: "A", message: "ignored" },
      { severity: "error", line: 1, code: "B", message: "broken" },
    ]);
    expect(hasErrors(sink.items)).toBe(true);
    expect(hasErrors(sink.items.slice(0, 1))).toBe(false);
  });

  it("formats one line per diagnostic", () => {
    expect(formatDiagnostic({ severity: "error", line: 2, code: "X", message: "fix it", script: "f/a.ts" })).toBe(
      "f/a.ts:2: error: fix it [X]",
    );
    expect(formatDiagnostic({ severity: "warning", line: 0, code: "Y", message: "m" })).toBe(
      "<script>:0: warning: m [Y]",
    );
  });
});
