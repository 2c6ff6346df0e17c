import { describe, expect, it } from "vitest";
import { terminalSafe } from "./terminal-text.js";

describe("terminalSafe", () => {
  it("shows ESC sequences, bells, carriage returns, newlines, DEL, C1 and bidi overrides as visible escapes", () => {
    expect(terminalSafe("run\u001b]0;owned\u0007")).toBe("run\\x1b]0;owned\\x07");
    expect(terminalSafe("a\nb\rc\td")).toBe("a\\nb\\rc\\td");
    expect(terminalSafe("x\u007f\u009by\u202ez")).toBe("x\\x7f\\x9by\\u202ez");
    expect(terminalSafe("plain ünïcode ✓ 🚀")).toBe("plain ünïcode ✓ 🚀");
  });
  it("with an indent keeps lines and tabs but indents each continuation line", () => {
    expect(terminalSafe("first\n✓ forged\tline\u001b[2J", { indent: "    " })).toBe(
      "first\n    ✓ forged\tline\\x1b[2J",
    );
    expect(terminalSafe("a\r\nb", { indent: ">" })).toBe("a\n>b");
  });
});
