import { describe, expect, it } from "vitest";
import { argsFor, mainParamsOf, paramList, paramSpec } from "./params.js";

describe("payload to parameters", () => {
  it("reads parameter names of async arrows, functions and defaults", () => {
    expect(paramList(async (url: string, pageCount = 2) => [url, pageCount])).toEqual({
      names: ["url", "pageCount"],
      rest: false,
    });
    expect(
      paramList(async function main(x: number, y: number) {
        return x + y;
      }),
    ).toEqual({ names: ["x", "y"], rest: false });
    expect(paramList(async () => 1)).toEqual({ names: [], rest: false });
    expect(paramList(async ({ a }: { a: number }) => a)).toEqual({ names: null, rest: false });
  });
  it("maps objects by name, arrays by position, and refuses unknown keys", () => {
    const params = paramList(async (payload: unknown, maxRetries = 3) => [payload, maxRetries]);
    expect(argsFor({ payload: { a: 1 } }, params, "main")).toEqual([{ a: 1 }, undefined]);
    expect(argsFor([1, 2], params, "main")).toEqual([1, 2]);
    expect(argsFor(null, params, "main")).toEqual([]);
    expect(() => argsFor({ payload: 1, retries: 2 }, params, "f/x/main")).toThrow(
      /unknown parameter "retries" for f\/x\/main: its parameters are payload, maxRetries/,
    );
    expect(argsFor({ a: 1 }, { names: null, rest: false }, "main")).toEqual([{ a: 1 }]);
  });
});

describe("paramSpec and mainParamsOf", () => {
  it("reads which parameters are required from main's TypeScript source", () => {
    const src = `import { workflow } from "windmill-client";\nexport const main = workflow(async (baseUrl: string, pages: number, label?: string, limit = 3) => 1);`;
    expect(mainParamsOf(src)).toEqual([
      { name: "baseUrl", optional: false },
      { name: "pages", optional: false },
      { name: "label", optional: true },
      { name: "limit", optional: true },
    ]);
    expect(mainParamsOf("export async function main(x: number, y?: number) { return x; }")).toEqual([
      { name: "x", optional: false },
      { name: "y", optional: true },
    ]);
    expect(mainParamsOf("export const other = 1;")).toBeNull();
    const fn = async (baseUrl: string, pages: number, label?: string, limit = 3) => [baseUrl, pages, label, limit];
    expect(paramSpec(fn, src)).toEqual({
      names: ["baseUrl", "pages", "label", "limit"],
      required: ["baseUrl", "pages"],
    });
    // Without the source (or when it disagrees) nothing is required, the names still are checked.
    expect(paramSpec(fn)).toEqual({ names: ["baseUrl", "pages", "label", "limit"], required: [] });
    expect(paramSpec(fn, "export async function main(a: string) {}")).toEqual({
      names: ["baseUrl", "pages", "label", "limit"],
      required: [],
    });
    expect(paramSpec(async ({ a }: { a: number }) => a)).toBeNull();
  });
});
