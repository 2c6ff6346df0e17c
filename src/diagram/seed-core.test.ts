import { describe, expect, it } from "vitest";
import { analyzeFixture, chain, edgeList, ids, nodeById } from "./testkit.js";

describe("seed 000: core primitives", () => {
  it("Quickstart: step, three tasks and a sleep in sequence", () => {
    const d = analyzeFixture("quickstart");
    expect(d.workflow).toEqual({ name: "main", dialect: "windmill", params: ["url"], line: 19, column: 30 });
    expect(ids(d)).toEqual([
      "start",
      "step:started_at",
      "task:fetchData",
      "task:transform",
      "sleep:sleep",
      "task:notify",
      "return:1",
      "end",
    ]);
    expect(edgeList(d)).toEqual(
      chain(
        "start",
        "step:started_at",
        "task:fetchData",
        "task:transform",
        "sleep:sleep",
        "task:notify",
        "return:1",
        "end",
      ),
    );
    expect(nodeById(d, "task:fetchData")).toMatchObject({
      kind: "task",
      label: "fetchData",
      key: "fetchData",
      taskType: "function",
      functionName: "fetchData",
      line: 24,
    });
    expect(nodeById(d, "step:started_at")).toMatchObject({
      kind: "step",
      label: "started_at",
      key: "started_at",
      line: 21,
    });
    expect(nodeById(d, "sleep:sleep")).toMatchObject({
      kind: "sleep",
      label: "sleep 5s",
      key: "sleep",
      duration: { value: 5, unit: "s" },
    });
    expect(d.warnings).toEqual([]);
  });

  it("workflow(): an entry with no primitives is start → return → end", () => {
    const d = analyzeFixture("workflow-basic");
    expect(d.workflow).toMatchObject({ name: "main", params: ["x", "y"] });
    expect(edgeList(d)).toEqual(chain("start", "return:1", "end"));
  });

  it("task(): a repeated task name gets name#2 in source order", () => {
    const d = analyzeFixture("task-basic");
    expect(edgeList(d)).toEqual(chain("start", "task:double", "task:double#2", "task:add", "return:1", "end"));
    expect(d.nodes.filter((n) => n.kind === "task").map((n) => [n.label, n.key])).toEqual([
      ["double", "double"],
      ["double", "double#2"],
      ["add", "add"],
    ]);
    expect(nodeById(d, "task:double#2").approximateKey).toBeUndefined();
  });

  it("task() with a path and options, and with options only", () => {
    const d = analyzeFixture("task-options");
    expect(nodeById(d, "task:double")).toMatchObject({
      label: "double",
      key: "double",
      functionName: "double",
      path: "f/my_folder/heavy_script",
      options: {
        timeout: 600,
        tag: "gpu",
        cache_ttl: 3600,
        priority: 10,
        concurrency_limit: 5,
        concurrency_key: "my_key",
        concurrency_time_window_s: 60,
      },
    });
    const second = nodeById(d, "task:double#2");
    expect(second.options).toEqual({ timeout: 300, tag: "highmem" });
    expect(second.path).toBeUndefined();
  });

  it("step(): named steps keep their explicit names as keys", () => {
    const d = analyzeFixture("step");
    expect(edgeList(d)).toEqual(
      chain("start", "step:order_id", "step:timestamp", "task:processOrder", "return:1", "end"),
    );
    expect(nodeById(d, "step:timestamp")).toMatchObject({ kind: "step", label: "timestamp", key: "timestamp" });
  });

  it("sleep(): a sleep between two calls of the same task", () => {
    const d = analyzeFixture("sleep");
    expect(edgeList(d)).toEqual(
      chain("start", "task:sendReminder", "sleep:sleep", "task:sendReminder#2", "return:1", "end"),
    );
    expect(nodeById(d, "sleep:sleep")).toMatchObject({ label: "sleep 3600s", duration: { value: 3600, unit: "s" } });
  });

  it("API reference: all four task() call shapes", () => {
    const d = analyzeFixture("api-task-variants");
    const tasks = d.nodes.filter((n) => n.kind === "task");
    expect(tasks.map((n) => [n.key, n.path ?? null, n.options ?? null])).toEqual([
      ["myFunction", null, null],
      ["myFunction#2", null, { timeout: 600, tag: "gpu" }],
      ["myFunction#3", "f/folder/script", null],
      ["myFunction#4", "f/folder/script", { timeout: 600 }],
    ]);
  });

  it("API reference: taskScript/taskFlow wrappers assigned to variables and called later", () => {
    const d = analyzeFixture("api-task-wrappers");
    expect(edgeList(d)).toEqual(chain("start", "task:f/data/extract", "task:f/etl/pipeline", "return:1", "end"));
    expect(nodeById(d, "task:f/data/extract")).toMatchObject({
      taskType: "script",
      label: "f/data/extract",
      key: "f/data/extract",
      path: "f/data/extract",
      options: { timeout: 3600 },
      line: 7,
    });
    expect(nodeById(d, "task:f/etl/pipeline")).toMatchObject({
      taskType: "flow",
      options: { concurrency_limit: 5 },
      line: 10,
    });
  });

  it("API reference: step, sleep, approval with form, parallel with concurrency, getResumeUrls", () => {
    const d = analyzeFixture("api-primitives");
    expect(ids(d)).toEqual([
      "start",
      "step:timestamp",
      "step:run_id",
      "sleep:sleep",
      "approval:waitForApproval",
      "parallel:1",
      "task:process",
      "join:1",
      "step:urls",
      "return:1",
      "end",
    ]);
    expect(nodeById(d, "approval:waitForApproval").options).toEqual({
      timeout: 3600,
      selfApproval: false,
      form: {
        reason: { type: "string", description: "Why are you approving?" },
        priority: { type: "number", enum: [1, 2, 3] },
      },
    });
    expect(nodeById(d, "parallel:1")).toMatchObject({ dynamic: true, options: { concurrency: 5 } });
    expect(nodeById(d, "task:process")).toMatchObject({ parent: "parallel:1", repeated: true, approximateKey: true });
  });
});
