import { describe, expect, it } from "vitest";
import { analyzeFixture, chain, edgeList, ids, nodeById } from "./testkit.js";

describe("seed 000: parallelism", () => {
  it("Promise.all over an array literal: a fork per call and a join", () => {
    const d = analyzeFixture("parallel-promise-all");
    expect(edgeList(d)).toEqual([
      "start -> parallel:1",
      "parallel:1 -> task:fetchUser",
      "parallel:1 -> task:fetchUser#2",
      "parallel:1 -> task:fetchUser#3",
      "task:fetchUser -> join:1",
      "task:fetchUser#2 -> join:1",
      "task:fetchUser#3 -> join:1",
      "join:1 -> parallel:2",
      "parallel:2 -> task:enrichUser",
      "parallel:2 -> task:enrichUser#2",
      "parallel:2 -> task:enrichUser#3",
      "task:enrichUser -> join:2",
      "task:enrichUser#2 -> join:2",
      "task:enrichUser#3 -> join:2",
      "join:2 -> return:1",
      "return:1 -> end",
    ]);
    expect(nodeById(d, "parallel:1")).toMatchObject({ kind: "parallel", label: "Promise.all", dynamic: false });
    expect(nodeById(d, "join:1")).toMatchObject({ kind: "join", closes: "parallel:1" });
    // Static branches are not groups and run once: their keys are exact.
    expect(nodeById(d, "task:fetchUser#3").parent).toBeUndefined();
    expect(nodeById(d, "task:fetchUser#3").approximateKey).toBeUndefined();
  });

  it("parallel(items, fn) and parallel(items, fn, { concurrency }): dynamic groups", () => {
    const d = analyzeFixture("parallel-helper");
    expect(edgeList(d)).toEqual(
      chain(
        "start",
        "parallel:1",
        "task:processItem",
        "join:1",
        "parallel:2",
        "task:processItem#2",
        "join:2",
        "return:1",
        "end",
      ),
    );
    expect(nodeById(d, "parallel:1")).toMatchObject({ label: "parallel", dynamic: true });
    expect(nodeById(d, "parallel:1").options).toBeUndefined();
    expect(nodeById(d, "parallel:2").options).toEqual({ concurrency: 3 });
    expect(nodeById(d, "task:processItem")).toMatchObject({
      key: "processItem",
      parent: "parallel:1",
      repeated: true,
      approximateKey: true,
    });
    // After a fan-out the count of processItem is unknown, so the next key is flagged too.
    expect(nodeById(d, "task:processItem#2")).toMatchObject({ parent: "parallel:2", approximateKey: true });
  });

  it("ETL pipeline: two fan-outs with concurrency, then one load task", () => {
    const d = analyzeFixture("etl");
    expect(edgeList(d)).toEqual(
      chain(
        "start",
        "parallel:1",
        "task:extractFromApi",
        "join:1",
        "parallel:2",
        "task:transformRecord",
        "join:2",
        "task:loadBatch",
        "return:1",
        "end",
      ),
    );
    expect(nodeById(d, "parallel:1").options).toEqual({ concurrency: 10 });
    expect(nodeById(d, "parallel:2").options).toEqual({ concurrency: 20 });
    expect(nodeById(d, "task:loadBatch")).toMatchObject({ key: "loadBatch" });
    expect(nodeById(d, "task:loadBatch").approximateKey).toBeUndefined();
  });

  it("Complete example: steps, fan-outs, approval gate, task, sleep", () => {
    const d = analyzeFixture("complete");
    expect(ids(d)).toEqual([
      "start",
      "step:run_id",
      "step:started_at",
      "parallel:1",
      "task:fetchPage",
      "join:1",
      "parallel:2",
      "task:processChunk",
      "join:2",
      "approval:waitForApproval",
      "branch:1",
      "return:1",
      "task:saveResults",
      "sleep:sleep",
      "return:2",
      "end",
    ]);
    expect(edgeList(d)).toEqual([
      ...chain("start", "step:run_id", "step:started_at", "parallel:1", "task:fetchPage", "join:1"),
      ...chain("join:1", "parallel:2", "task:processChunk", "join:2", "approval:waitForApproval", "branch:1"),
      "branch:1 -[true]-> return:1",
      "branch:1 -[false]-> task:saveResults",
      ...chain("task:saveResults", "sleep:sleep", "return:2"),
      "return:1 -> end",
      "return:2 -> end",
    ]);
    expect(nodeById(d, "parallel:1").options).toEqual({ concurrency: 5 });
    expect(nodeById(d, "approval:waitForApproval").options).toEqual({ timeout: 3600 });
    expect(nodeById(d, "branch:1").label).toBe("!approval.approved");
  });
});
