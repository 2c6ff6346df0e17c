import { describe, expect, it } from "vitest";
import { jsonLine, jsonMessages, parseLogFormat } from "./log-format.js";

describe("log format", () => {
  it("accepts text and json, refuses anything else with the fix", () => {
    expect(parseLogFormat("text")).toBe("text");
    expect(parseLogFormat("json")).toBe("json");
    expect(() => parseLogFormat("JSON")).toThrow(/use text or json/);
  });

  it("renders one object per line, time first, and wraps plain messages line by line", () => {
    expect(jsonLine({ level: "info", msg: "hi", runId: "r1" }, 0)).toBe(
      '{"ts":"1970-01-01T00:00:00.000Z","level":"info","msg":"hi","runId":"r1"}\n',
    );
    const out: string[] = [];
    jsonMessages((t) => out.push(t))("first\n\nsecond\n");
    expect(out.map((l) => JSON.parse(l).msg)).toEqual(["first", "second"]);
    expect(out.every((l) => l.endsWith("}\n") && l.split("\n").length === 2)).toBe(true);
  });
});
