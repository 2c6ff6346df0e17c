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

  it("checks positional arrays by length: no more than the parameters, every required one given", () => {
    for (const p of [["u"], ["u", 1], [null]]) expect(() => checkArguments("f/x", spec, p)).not.toThrow();
    expect(() => checkArguments("f/x", spec, [])).toThrow(
      'missing parameter "baseUrl" for f/x: its parameters are baseUrl, pages (required: baseUrl)',
    );
    expect(() => checkArguments("f/x", spec, ["u", 1, 2])).toThrow(
      "too many arguments for f/x: 3 given by position, its parameters are baseUrl, pages",
    );
    expect(() => checkArguments("f/none", { names: [], required: [] }, [1])).toThrow(
      "too many arguments for f/none: 1 given by position, it takes no parameters",
    );
  });

  it("a string, number or boolean is the first argument alone; null gives none", () => {
    expect(() => checkArguments("f/x", spec, "u")).not.toThrow();
    expect(() => checkArguments("f/add", { names: ["x", "y"], required: ["x", "y"] }, "str")).toThrow(
      'missing parameter "y" for f/add: its parameters are x, y (required: x, y)',
    );
    expect(() => checkArguments("f/add", { names: ["x", "y"], required: ["x", "y"] }, 5)).toThrow(
      /missing parameter "y" for f\/add/,
    );
    expect(() => checkArguments("f/x", spec, null)).toThrow(/missing parameter "baseUrl" for f\/x/);
    expect(() => checkArguments("f/x", { names: ["a"], required: [] }, null)).not.toThrow();
    expect(() => checkArguments("f/none", { names: [], required: [] }, true)).toThrow(
      "too many arguments for f/none: the payload true is its first, it takes no parameters",
    );
    expect(() => checkArguments("f/none", { names: [], required: [] }, null)).not.toThrow();
  });
});
