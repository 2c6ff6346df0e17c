import { describe, expect, it } from "vitest";
import {
  crashRefuses,
  decodeLaneCrash,
  describeLaneCrash,
  encodeLaneCrash,
  type LaneCrash,
  LaneCrashedError,
  summarizeLaneCrash,
} from "./crash-record.js";

const crash: LaneCrash = {
  group: "email",
  server: "web-1",
  exitCode: 1,
  signal: null,
  stderrTail: ["Error: no SMTP_URL"],
  at: 5,
};

describe("lane crash records", () => {
  it("round-trip through the key-value store", () => {
    expect(decodeLaneCrash("email", encodeLaneCrash(crash))).toEqual(crash);
  });

  it("a stored value that is not a record still reads as a crash (never a failing read)", () => {
    for (const bad of ["", "not json", "[1]", "null", '{"stderrTail": [1, "x"], "exitCode": "1"}']) {
      const c = decodeLaneCrash("gpu", bad);
      expect(c.group).toBe("gpu");
      expect(c.exitCode).toBeNull();
      expect(Array.isArray(c.stderrTail)).toBe(true);
    }
    expect(decodeLaneCrash("gpu", '{"stderrTail": [1, "x"]}').stderrTail).toEqual(["x"]);
  });

  it("the error names the lane, the exit and the worker's stderr", () => {
    const err = new LaneCrashedError(crash);
    expect(err.code).toBe("LANE_CRASHED");
    expect(err.message).toMatch(
      /^worker lane "email" is down: its worker exited with code 1 before claiming any run \(server web-1\)/,
    );
    expect(err.message).toMatch(/Worker stderr:\n {2}Error: no SMTP_URL$/);
    expect(describeLaneCrash({ ...crash, signal: "SIGKILL", stderrTail: [] })).toMatch(
      /was killed by SIGKILL .*wrote nothing to stderr/,
    );
  });

  it("a worker that could not be started at all says why (and keeps it through the store)", () => {
    const failed: LaneCrash = { ...crash, exitCode: null, stderrTail: [], startError: "EACCES: permission denied" };
    expect(decodeLaneCrash("email", encodeLaneCrash(failed))).toEqual(failed);
    expect(describeLaneCrash(failed)).toMatch(
      /^worker lane "email" is down: its worker could not be started \(server web-1\): EACCES: permission denied; new runs/,
    );
    expect(summarizeLaneCrash(failed)).toBe("its worker could not be started: EACCES: permission denied");
    expect(summarizeLaneCrash(crash)).toBe("its worker exited with code 1 before claiming any run: Error: no SMTP_URL");
  });

  it("a worker command's crash keeps its command and workflows, refuses only those, and says so", () => {
    const go: LaneCrash = {
      group: "command:go",
      server: "web-1",
      exitCode: 1,
      signal: null,
      stderrTail: ["cannot open the orders database"],
      at: 5,
      command: "go run ./cmd/worker",
      workflows: ["charge", "refund"],
    };
    expect(decodeLaneCrash("command:go", encodeLaneCrash(go))).toEqual(go);
    expect(crashRefuses(go, "default", "charge")).toBe(true);
    expect(crashRefuses(go, "go", "ship")).toBe(false);
    // A group's crash refuses its group, whatever the workflow.
    expect(crashRefuses(crash, "email", "anything")).toBe(true);
    expect(crashRefuses(crash, "default", "anything")).toBe(false);
    expect(describeLaneCrash(go)).toMatch(
      /^worker lane "command:go" is down: its command "go run \.\/cmd\/worker" exited with code 1 before claiming any run \(server web-1\), so new runs of its workflows \(charge, refund\) are refused\./,
    );
    expect(describeLaneCrash(go)).toMatch(/Worker stderr:\n {2}cannot open the orders database$/);
    expect(summarizeLaneCrash(go)).toBe(
      "its command exited with code 1 before claiming any run: cannot open the orders database",
    );
    // Crashed before it ever asked for work: nothing is known to refuse.
    expect(describeLaneCrash({ ...go, workflows: [] })).toContain(
      "its workflows are not known yet (it never asked for work), so no enqueue is refused",
    );
    expect(crashRefuses({ ...go, workflows: [] }, "go", "charge")).toBe(false);
  });
});
