import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkArguments } from "../../core/params.js";
import { makeProject } from "../../../test/helpers/project.js";
import type { MemberScript } from "./catalog.js";
import { pipelineParamSpec, PythonScriptParams } from "./script-params.js";

describe("pipelineParamSpec", () => {
  it("is the workflow spec of main's parameters, open, nothing required, without partition's type", () => {
    expect(
      pipelineParamSpec([
        { name: "n", required: true, type: "int" },
        { name: "partition", required: false, type: "str" },
        { name: "when", required: false, type: "datetime" },
      ]),
    ).toEqual({
      names: ["n", "partition", "when"],
      required: [],
      types: { n: { hint: "int", json: ["integer"] } },
      open: true,
    });
  });

  it("is null when nothing can be checked", () => {
    expect(pipelineParamSpec(null)).toBeNull();
    expect(pipelineParamSpec([{ name: "x", required: true, type: null }])).toBeNull();
    expect(pipelineParamSpec([{ name: "partition", required: true, type: "str" }])).toBeNull();
  });
});

const member = (path: string, source: string): MemberScript =>
  ({ path, name: path.replace(/\.py$/, ""), folder: "f/p", language: "python", source }) as unknown as MemberScript;

describe("PythonScriptParams (real python3)", () => {
  it("reads main's hints as the loader reads a workflow's; a file that does not import gives no spec", async () => {
    const files = {
      "f/p/typed.py":
        "# pipeline\nfrom typing import Optional\n\ndef main(n: int, tag: Optional[str] = None, partition: str = ''):\n    return n\n",
      "f/p/kw.py": "# pipeline\ndef main(n: int, **rest):\n    return n\n",
      "f/p/broken.py": "# pipeline\nimport not_a_module_here\n\ndef main(n: int):\n    return n\n",
    };
    const root = makeProject(files);
    const members = Object.entries(files).map(([p, s]) => member(p, s));
    const params = new PythonScriptParams("python3", root);
    const specs = await params.specs(members);
    expect(specs.get("f/p/typed.py")).toMatchObject({
      names: ["n", "tag", "partition"],
      required: [],
      open: true,
      types: { n: { hint: "int", json: ["integer"] } },
    });
    expect(specs.get("f/p/typed.py")!.types).not.toHaveProperty("partition");
    expect(specs.get("f/p/kw.py")).toBeNull();
    expect(specs.get("f/p/broken.py")).toBeNull();
    expect(() => checkArguments("f/p/typed", specs.get("f/p/typed.py")!, { n: "two", tag: 3 })).toThrow(
      'parameter "n" of f/p/typed is int, so it takes a whole number: got "two" (a string)',
    );

    // Known sources are not inspected again; a changed one is.
    writeFileSync(join(root, "f/p/kw.py"), "# pipeline\ndef main(n: float):\n    return n\n");
    const again = await params.specs(members);
    expect(again.get("f/p/kw.py")).toBeNull();
    const changed = member("f/p/kw.py", "# pipeline\ndef main(n: float):\n    return n\n");
    expect((await params.specs([changed])).get("f/p/kw.py")).toMatchObject({ types: { n: { hint: "float" } } });
  });

  it("gives no spec when the interpreter cannot start", async () => {
    const root = makeProject({ "f/p/a.py": "def main(n: int):\n    return n\n" });
    const params = new PythonScriptParams(join(root, "no-python-here"), root);
    expect((await params.specs([member("f/p/a.py", "def main(n: int):\n    return n\n")])).get("f/p/a.py")).toBeNull();
  });
});
