import { describe, expect, it } from "vitest";
import { functionTableSource, moduleFunctionNames } from "./function-table.js";

describe("module function table", () => {
  it("lists top-level functions, exported or not, and imported functions passed to task()", () => {
    const source = `
      import { workflow, task } from "windmill-client";
      import { extract } from "./lib";
      import type { Row } from "./types";
      import { helperNotUsedAsTask } from "./other";
      async function fetchData(url: string) { return url; }
      export async function transform(data: any) { return data; }
      const notify = async (m: string) => m;
      const double = ((n: number) => n * 2) as (n: number) => number;
      const config = { a: 1 };
      export const main = workflow(async (url: string) => {
        const local = async () => 1;
        await task(extract)(url);
        await task("f/x/heavy", double)(1);
        await task(local)();
        return task(fetchData)(url);
      });
    `;
    expect(moduleFunctionNames(source, "wf.ts")).toEqual(["double", "extract", "fetchData", "notify", "transform"]);
    expect(functionTableSource(["a", "b"])).toBe('\nexport const __sluice_functions = { "a": a, "b": b };\n');
  });
});
