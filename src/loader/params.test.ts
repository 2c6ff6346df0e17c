import { describe, expect, it } from "vitest";
import { argsFor, paramList } from "./params.js";

describe("payload to parameters", () => {
  it("reads parameter names of async arrows, functions and defaults", () => {
    expect(paramList(async (url: string, pageCount = 2) => [url, pageCount])).toEqual({ names: ["url", "pageCount"], rest: false });
    expect(paramList(async function main(x: number, y: number) { return x + y; })).toEqual({ names: ["x", "y"], rest: false });
    expect(paramList(async () => 1)).toEqual({ names: [], rest: false });
    expect(paramList(async ({ a }: { a: number }) => a)).toEqual({ names: null, rest: false });
  });
  it("maps objects by name, arrays by position, and refuses unknown keys", () => {
    const params = paramList(async (payload: unknown, maxRetries = 3) => [payload, maxRetries]);
    expect(argsFor({ payload: { a: 1 } }, params, "main")).toEqual([{ a: 1 }, undefined]);
    expect(argsFor([1, 2], params, "main")).toEqual([1, 2]);
    expect(argsFor(null, params, "main")).toEqual([]);
    expect(() => argsFor({ payload: 1, retries: 2 }, params, "f/x/main")).toThrow(/f\/x\/main has no parameter "retries"; it takes \(payload, maxRetries\)/);
    expect(argsFor({ a: 1 }, { names: null, rest: false }, "main")).toEqual([{ a: 1 }]);
  });
});
