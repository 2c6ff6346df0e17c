import { describe, expect, it } from "vitest";
import { checkArguments } from "./params.js";

const spec = { names: ["baseUrl", "pages"], required: ["baseUrl"] };

describe("checkArguments", () => {
  it("accepts known keys with every required one present", () => {
    expect(() => checkArguments("f/x", spec, { baseUrl: "u" })).not.toThrow();
    expect(() => checkArguments("f/x", spec, { baseUrl: "u", pages: 2 })).not.toThrow();
  });

  it("names the unknown keys and the parameters", () => {
    expect(() => checkArguments("f/x", spec, { baseUrl: "u", dta: 1 })).toThrow(
      'unknown parameter "dta" for f/x: its parameters are baseUrl, pages',
    );
    expect(() => checkArguments("f/x", spec, { a: 1, b: 2 })).toThrow(/unknown parameters "a", "b" for f\/x/);
    expect(() => checkArguments("f/none", { names: [], required: [] }, { a: 1 })).toThrow(
      'unknown parameter "a" for f/none: it takes no parameters',
    );
  });

  it("names the missing required parameters", () => {
    expect(() => checkArguments("f/x", spec, { pages: 1 })).toThrow(
      'missing parameter "baseUrl" for f/x: its parameters are baseUrl, pages (required: baseUrl)',
    );
    expect(() => checkArguments("f/x", spec, {})).toThrow(/missing parameter "baseUrl"/);
  });

  it("leaves positional arrays, null and scalars to the call", () => {
    for (const p of [["u", 1], null, "u", 3]) expect(() => checkArguments("f/x", spec, p)).not.toThrow();
  });
});
