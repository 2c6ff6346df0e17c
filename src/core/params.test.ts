import { describe, expect, it } from "vitest";
import { checkArguments, parseParamSpec, type ParamSpec } from "./params.js";

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

describe("checkArguments with types (Python's hints)", () => {
  const typed: ParamSpec = {
    names: ["n", "ratio", "names", "opts", "flag", "maybe"],
    required: ["n"],
    types: {
      n: { hint: "int", json: ["integer"] },
      ratio: { hint: "float", json: ["number"] },
      names: { hint: "list[str]", json: ["array"] },
      opts: { hint: "dict", json: ["object"] },
      flag: { hint: "bool", json: ["boolean"] },
      maybe: { hint: "Optional[str]", json: ["string", "null"] },
    },
  };

  it("accepts values of each parameter's kind, an integer for a float, null for a parameter with a default", () => {
    const ok = { n: 1, ratio: 2, names: ["a"], opts: {}, flag: false, maybe: null };
    expect(() => checkArguments("f/t", typed, ok)).not.toThrow();
    expect(() => checkArguments("f/t", typed, { n: 1, ratio: 0.5, flag: null })).not.toThrow();
    expect(() => checkArguments("f/t", typed, [3, 1.5])).not.toThrow();
  });

  it("names the parameter, its hint, what it takes and what was given, by name or by position", () => {
    expect(() => checkArguments("f/t", typed, { n: "three" })).toThrow(
      'parameter "n" of f/t is int, so it takes a whole number: got "three" (a string)',
    );
    expect(() => checkArguments("f/t", typed, { n: 1.5 })).toThrow(/"n" of f\/t is int.*got 1\.5 \(a number\)/);
    expect(() => checkArguments("f/t", typed, { n: true })).toThrow(/got true \(true or false\)/);
    expect(() => checkArguments("f/t", typed, { n: null })).toThrow(/got null \(null\)/);
    expect(() => checkArguments("f/t", typed, [1, "x"])).toThrow(/"ratio" of f\/t is float, so it takes a number/);
    expect(() => checkArguments("f/t", typed, "seven")).toThrow(/"n" of f\/t is int/);
    expect(() => checkArguments("f/t", typed, { n: 1, maybe: 3 })).toThrow(
      'parameter "maybe" of f/t is Optional[str], so it takes a string or null: got 3 (a whole number)',
    );
  });

  it("survives the store's JSON; unreadable types are dropped, an unreadable list is no check at all", () => {
    expect(parseParamSpec(JSON.stringify(typed))).toEqual(typed);
    const bad = { ...typed, types: { n: { hint: "int", json: ["integer", "complex"] }, flag: typed.types!.flag } };
    expect(parseParamSpec(JSON.stringify(bad))).toEqual({ ...typed, types: { flag: typed.types!.flag } });
    expect(parseParamSpec(JSON.stringify({ names: ["a"], required: [] }))).toEqual({ names: ["a"], required: [] });
    expect(parseParamSpec("{oops")).toBeNull();
    expect(parseParamSpec(JSON.stringify({ names: [1], required: [] }))).toBeNull();
  });
});

describe("checkArguments with an open spec (a pipeline script's)", () => {
  const open: ParamSpec = {
    names: ["n", "tag"],
    required: ["n"],
    types: { n: { hint: "int", json: ["integer"] }, tag: { hint: "Optional[str]", json: ["string", "null"] } },
    open: true,
  };

  it("checks the types of the arguments given, by name or by position", () => {
    expect(() => checkArguments("f/p/step", open, { n: "two" })).toThrow(
      'parameter "n" of f/p/step is int, so it takes a whole number: got "two" (a string)',
    );
    expect(() => checkArguments("f/p/step", open, { n: null })).toThrow(/"n" of f\/p\/step is int.*got null/);
    expect(() => checkArguments("f/p/step", open, [1, 2])).toThrow(/"tag" of f\/p\/step is Optional\[str\]/);
  });

  it("accepts keys that name no parameter, missing required ones and extra positions: the runner decides", () => {
    for (const p of [
      {},
      null,
      { n: 1, extra: "x", _sluice: { cascade: false }, _wmill_skip_asset_dispatch: true },
      { tag: null },
      JSON.parse('{"toString": 1, "constructor": "x", "__proto__": 2}') as unknown,
      [1, "a", "more", 4],
    ])
      expect(() => checkArguments("f/p/step", open, p)).not.toThrow();
  });

  it("keeps `open` through the store's JSON", () => {
    expect(parseParamSpec(JSON.stringify(open))).toEqual(open);
    expect(parseParamSpec(JSON.stringify({ ...open, open: "yes" }))).not.toHaveProperty("open");
  });
});
