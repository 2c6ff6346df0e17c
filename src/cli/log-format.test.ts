import { describe, expect, it } from "vitest";
import { jsonLine, jsonMessages, jsonOnlyWriter, parseLogFormat } from "./log-format.js";

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

  it("makes every line of a stream a JSON object: JSON lines pass, pieces wait for their line's end", () => {
    const out: string[] = [];
    const err = jsonOnlyWriter((t) => out.push(t), "stderr");
    err.write('{"ts":"x","level":"info","msg":"already"}\nsluice worker: claim failed (down); ret');
    err.write("rying\n\nsluice: cannot reach Postgres\n[1, 2]\ntail");
    err.flush();
    expect(
      out
        .join("")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { level: string; msg: string }),
    ).toEqual([
      { ts: "x", level: "info", msg: "already" },
      { ts: expect.any(String), level: "warn", msg: "sluice worker: claim failed (down); retrying" },
      { ts: expect.any(String), level: "error", msg: "sluice: cannot reach Postgres" },
      { ts: expect.any(String), level: "warn", msg: "[1, 2]" },
      { ts: expect.any(String), level: "warn", msg: "tail" },
    ]);
  });
});
