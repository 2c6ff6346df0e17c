import ts from "typescript";
import { describe, expect, it } from "vitest";
import { detectAssets } from "./detect-assets.js";
import { tsLakeCalls } from "./lake-calls-ts.js";

const calls = (source: string, file = "f/x/a.ts") => tsLakeCalls(ts, source, file);

describe("tsLakeCalls (the TypeScript parser's tree)", () => {
  it("finds writes and reads on a bound client and on the call itself, main by default", () => {
    const found = calls(`import * as wmill from "windmill-client";
const lake = wmill.ducklake("shop");
export async function main() {
  await lake.upsertPartition("orders", rows, { key: "id" });
  await wmill.ducklake().appendPartition(\`events\`, rows);
  const old = await (lake as any).read("orders", { version: 3 });
  await lake.append_partition("py_style", rows);
}`);
    expect(found.detections).toEqual([
      { uri: "ducklake://shop/orders", access: "write", line: 4, via: "ducklake().upsertPartition" },
      { uri: "ducklake://main/events", access: "write", line: 5, via: "ducklake().appendPartition" },
      { uri: "ducklake://shop/orders", access: "read", line: 6, via: "ducklake().read" },
      { uri: "ducklake://shop/py_style", access: "write", line: 7, via: "ducklake().append_partition" },
    ]);
    expect([...found.clients].sort()).toEqual(["ducklake://main", "ducklake://shop"]);
  });

  it("reports a computed table as dynamic, and leaves strings, comments, other objects and computed lakes alone", () => {
    const found = calls(
      `import { ducklake } from "windmill-client";
const text = "ducklake('shop').upsertPartition('in_a_string', [])";
// ducklake("shop").upsertPartition("in_a_comment", []);
const other = { upsertPartition: (t: string) => t };
export async function main(name: string, table: string) {
  other.upsertPartition("not_a_lake");
  await ducklake(name).upsertPartition("computed_lake", []);
  await ducklake("shop").upsertPartition(table, []);
  await ducklake("shop").constructor("x");
}`,
      "f/x/a.js",
    );
    expect(found.detections).toEqual([]);
    expect(found.dynamic).toEqual([{ line: 8, via: "ducklake().upsertPartition" }]);
  });

  it("does not follow a name bound to clients of two lakes", () => {
    const found = calls(`function a() { const lake = ducklake("one"); return lake.upsertPartition("t", []); }
function b() { const lake = ducklake("two"); return lake.upsertPartition("t", []); }`);
    expect(found.detections).toEqual([]);
  });

  it("detectAssets takes the findings as writes, and the lake itself is no longer of unknown access", () => {
    const source = `// pipeline
import * as wmill from "windmill-client";
export async function main() {
  const lake = wmill.ducklake("shop");
  await lake.upsertPartition("orders", []);
}`;
    const before = detectAssets(source, { language: "typescript" });
    expect(before.unknown.map((a) => a.asset.uri)).toEqual(["ducklake://shop"]);
    const after = detectAssets(source, { language: "typescript", code: calls(source) });
    expect(after.writes.map((a) => [a.asset.uri, a.line, a.via])).toEqual([
      ["ducklake://shop/orders", 5, ["ducklake().upsertPartition"]],
    ]);
    expect(after.unknown).toEqual([]);
    expect(after.diagnostics).toEqual([]);
  });
});
