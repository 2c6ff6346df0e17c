import { describe, expect, it } from "vitest";
import { jsonKindsOfHint, pythonParamSpec } from "./param-types.js";

describe("jsonKindsOfHint", () => {
  it("reads the hints whose JSON values are certain", () => {
    expect(jsonKindsOfHint("int")).toEqual(["integer"]);
    expect(jsonKindsOfHint("float")).toEqual(["number"]);
    expect(jsonKindsOfHint("list")).toEqual(["array"]);
    expect(jsonKindsOfHint("List[str]")).toEqual(["array"]);
    expect(jsonKindsOfHint("typing.Dict[str, int]")).toEqual(["object"]);
    expect(jsonKindsOfHint("Optional[int]")).toEqual(["integer", "null"]);
    expect(jsonKindsOfHint("int | None")).toEqual(["integer", "null"]);
    expect(jsonKindsOfHint("str | list[str]")).toEqual(["string", "array"]);
  });

  it("leaves any other hint unchecked", () => {
    for (const hint of [
      "Any",
      "datetime",
      "Optional",
      "Union",
      "Thing",
      "int | Thing",
      "Optional[Thing]",
      "Literal['a']",
    ])
      expect(jsonKindsOfHint(hint)).toBeNull();
  });
});

describe("pythonParamSpec", () => {
  it("names, required names and the types of the parameters with a readable hint", () => {
    const spec = pythonParamSpec([
      { name: "n", required: true, type: "int" },
      { name: "when", required: false, type: "datetime" },
      { name: "any", required: false, type: null },
    ]);
    expect(spec).toEqual({
      names: ["n", "when", "any"],
      required: ["n"],
      types: { n: { hint: "int", json: ["integer"] } },
    });
    expect(pythonParamSpec(null)).toBeNull();
    expect(pythonParamSpec([{ name: "x", required: true, type: null }])).toEqual({ names: ["x"], required: ["x"] });
  });
});
