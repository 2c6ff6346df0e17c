import { describe, expect, it } from "vitest";
import { brokenScripts } from "./catalog.js";
import { decisionMatches, parseOutcomes, type DispatchDecision } from "./decisions.js";
import { codeVersion, isDone } from "./done-marks.js";
import { stepsNotSucceeded } from "./plan-resume.js";

describe("done marks", () => {
  it("a step is done only at the same code version", () => {
    const v = codeVersion("export async function main() {}");
    expect(v).toMatch(/^[0-9a-f]{16}$/);
    expect(codeVersion("export async function main() {}")).toBe(v);
    expect(isDone({ version: v, run: "r", at: 1 }, v)).toBe(true);
    expect(isDone({ version: v, run: "r", at: 1 }, codeVersion("export async function main() { return 1; }"))).toBe(
      false,
    );
    expect(isDone(null, v)).toBe(false);
  });
});

describe("resuming a plan", () => {
  it("keeps every step without a succeeded run, in plan order", () => {
    const steps = ["f/s/a.ts", "f/s/b.ts", "f/s/c.ts", "f/s/d.ts"];
    expect(
      stepsNotSucceeded(steps, [
        { workflow: "f/s/a", status: "succeeded" },
        { workflow: "f/s/b", status: "failed" },
      ]),
    ).toEqual(["f/s/b.ts", "f/s/c.ts", "f/s/d.ts"]);
    expect(stepsNotSucceeded(steps, [])).toEqual(steps);
  });
});

describe("scripts that are not loaded", () => {
  const members = [{ path: "f/x/a.ts" }, { path: "f/x/b.ts" }];
  it("only the script with an error, with its first error as the reason", () => {
    const broken = brokenScripts(members, [
      { severity: "warning", line: 1, code: "W", message: "meh", script: "f/x/a.ts" },
      { severity: "error", line: 3, code: "PARTITION_TZ_INVALID", message: "bad tz", script: "f/x/b.ts" },
      { severity: "error", line: 4, code: "OTHER", message: "also", script: "f/x/b.ts" },
    ]);
    expect([...broken]).toEqual([["f/x/b.ts", "bad tz (f/x/b.ts:3) [PARTITION_TZ_INVALID]"]]);
  });
  it("every script when the error is the folder's own (pipeline.json)", () => {
    const broken = brokenScripts(members, [
      { severity: "error", line: 0, code: "TRIGGERS_FILE_INVALID", message: "not JSON", script: "f/x/pipeline.json" },
    ]);
    expect([...broken.keys()]).toEqual(["f/x/a.ts", "f/x/b.ts"]);
    expect(broken.get("f/x/a.ts")).toBe("not JSON (f/x/pipeline.json:0) [TRIGGERS_FILE_INVALID]");
  });
});

describe("decision filters", () => {
  const d = (outcome: DispatchDecision["outcome"], producerRun: string, run?: string): DispatchDecision => ({
    at: 1,
    outcome,
    subscriber: "f/x/b.ts",
    producer: "f/x/a.ts",
    producerRun,
    partition: null,
    ...(run && { run }),
  });
  it("filters by kind and by run (as producer or the run started)", () => {
    expect(decisionMatches(d("skipped", "r1"), { outcomes: ["dispatched"] })).toBe(false);
    expect(decisionMatches(d("dispatched", "r1", "r2"), { outcomes: ["dispatched"], run: "r2" })).toBe(true);
    expect(decisionMatches(d("dispatched", "r1", "r2"), { run: "r1" })).toBe(true);
    expect(decisionMatches(d("dispatched", "r1", "r2"), { run: "r3" })).toBe(false);
    expect(decisionMatches(d("dispatched", "r1"), { scripts: new Set(["f/y/z.ts"]) })).toBe(false);
  });
  it("parses kinds and refuses unknown ones", () => {
    expect(parseOutcomes("skipped, dispatched")).toEqual(["skipped", "dispatched"]);
    expect(() => parseOutcomes("skiped")).toThrow(/unknown decision kind "skiped"; kinds: dispatched, join-pending/);
  });
});
