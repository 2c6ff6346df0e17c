import { describe, expect, it } from "vitest";
import { moduleName, moduleScriptName } from "./script-paths.js";

describe("runnable names by path", () => {
  it("names modules by path without extension; __mod/script is its folder's entry", () => {
    expect(moduleName("f/data/etl.ts")).toBe("f/data/etl");
    expect(moduleName("f/my_folder/my_workflow__mod/script.ts")).toBe("f/my_folder/my_workflow");
    expect(moduleName("f/my_folder/my_workflow__mod/extract.ts")).toBe("f/my_folder/my_workflow__mod/extract");
  });
  it("resolves ./x.ts inside the workflow's __mod folder, in both layouts, and absolute paths from the root", () => {
    expect(moduleScriptName("./transform.ts", "f/my_folder/my_workflow.ts")).toBe(
      "f/my_folder/my_workflow__mod/transform",
    );
    expect(moduleScriptName("./transform.ts", "f/my_folder/my_workflow__mod/script.ts")).toBe(
      "f/my_folder/my_workflow__mod/transform",
    );
    expect(moduleScriptName("f/data/extract", "f/my_folder/my_workflow.ts")).toBe("f/data/extract");
    expect(moduleScriptName("/f/data/extract.ts", null)).toBe("f/data/extract");
  });
});
