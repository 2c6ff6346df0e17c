import { describe, expect, it } from "vitest";
import { jsonDepth, parseSafeJson } from "./json-body.js";

describe("jsonDepth", () => {
  it("counts nesting, ignoring brackets inside strings and escapes", () => {
    expect(jsonDepth("1")).toBe(0);
    expect(jsonDepth('{"a":[1,{"b":[]}]}')).toBe(4);
    expect(jsonDepth('{"a":"[[[[{{{{"}')).toBe(1);
    expect(jsonDepth('{"a":"\\"[[["}')).toBe(1);
    expect(jsonDepth("[".repeat(100_000))).toBe(100_000);
  });
});

describe("parseSafeJson", () => {
  it("parses ordinary JSON", () => {
    expect(parseSafeJson('{"a":[1,"x",null,{"b":true}]}', 64)).toEqual({ a: [1, "x", null, { b: true }] });
  });
  it("refuses documents nested deeper than the limit before parsing them", () => {
    expect(() => parseSafeJson("[".repeat(200_000) + "]".repeat(200_000), 64)).toThrow(
      /nested 200000 levels deep, over the limit of 64/,
    );
    expect(parseSafeJson("[".repeat(64) + "]".repeat(64), 64)).toBeDefined();
  });
  it("refuses prototype-pollution keys at any depth", () => {
    for (const text of ['{"__proto__":{}}', '{"a":{"b":[{"constructor":1}]}}', '{"prototype":1}']) {
      expect(() => parseSafeJson(text, 64), text).toThrow(expect.objectContaining({ code: "FORBIDDEN_KEY" }));
    }
    expect(parseSafeJson('{"proto":1,"constructors":2}', 64)).toEqual({ proto: 1, constructors: 2 });
  });
  it("says what is wrong with invalid JSON", () => {
    expect(() => parseSafeJson("{", 64)).toThrow(
      expect.objectContaining({ code: "INVALID_JSON", message: expect.stringMatching(/not valid JSON/) }),
    );
  });
});
