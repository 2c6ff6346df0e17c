import { describe, expect, it } from "vitest";
import { analyzeScript } from "../analyze.js";
import { parseWritten, writtenKey, writtenSlice } from "./written-index.js";

const member = (...lines: string[]) => ({ analyzed: analyzeScript({ path: "f/d/s.ts", source: lines.join("\n") }) });
const WRITES = [
  "import * as wmill from 'windmill-client';",
  "export async function main(partition: string) {",
  "  await wmill.writeS3File({ s3: 'd/summary.json' }, '{}');",
  "  await wmill.writeS3File({ s3: `d/by/${partition}.json` }, '{}');",
  "}",
];

describe("writtenSlice", () => {
  it("writes a plain asset whole when the step is not partitioned, though its run carries the chain's partition", () => {
    const step = member("// pipeline", "// on s3://d/raw/{partition}.json", ...WRITES);
    expect(writtenSlice(step, "2026-05-01", "s3://d/summary.json")).toBeUndefined();
    // a {partition} path it writes is per partition
    expect(writtenSlice(step, "2026-05-01", "s3://d/by/2026-05-01.json")).toBe("2026-05-01");
    expect(writtenSlice(step, undefined, "s3://d/by/2026-05-01.json")).toBeUndefined();
  });

  it("writes the run's partition when the step is // partitioned", () => {
    const step = member("// pipeline", "// partitioned daily", ...WRITES);
    expect(writtenSlice(step, "2026-05-01", "s3://d/summary.json")).toBe("2026-05-01");
    expect(writtenSlice(step, undefined, "s3://d/summary.json")).toBeUndefined();
  });
});

describe("parseWritten", () => {
  it("reads the asset and slice from the key, the entry from the value", () => {
    const whole = writtenKey("s3://d/summary.json", undefined);
    expect(whole).toBe("pipeline:written:s3://d/summary.json ");
    expect(parseWritten(whole, JSON.stringify({ run: "r", script: "f/d/s.ts", at: 5, runPartition: "p" }))).toEqual({
      uri: "s3://d/summary.json",
      partition: null,
      run: "r",
      script: "f/d/s.ts",
      at: 5,
      runPartition: "p",
    });
    expect(parseWritten(writtenKey("s3://d/x.json", "p"), JSON.stringify({ run: "r", script: "s", at: 1 }))).toEqual({
      uri: "s3://d/x.json",
      partition: "p",
      run: "r",
      script: "s",
      at: 1,
    });
  });
});
