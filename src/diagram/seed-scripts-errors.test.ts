import { describe, expect, it } from "vitest";
import { analyzeFixture, chain, edgeList, nodeById, warningCodes } from "./testkit.js";

describe("seed 000: scripts, flows, modules, errors, retries", () => {
  it("taskScript and taskFlow by path, with and without options", () => {
    const d = analyzeFixture("task-script-flow");
    expect(edgeList(d)).toEqual(
      chain(
        "start",
        "task:f/data_team/extract_users",
        "task:f/data_team/etl_pipeline",
        "task:f/ml/train_model",
        "return:1",
        "end",
      ),
    );
    expect(nodeById(d, "task:f/data_team/extract_users")).toMatchObject({
      taskType: "script",
      path: "f/data_team/extract_users",
    });
    expect(nodeById(d, "task:f/data_team/etl_pipeline")).toMatchObject({
      taskType: "flow",
      key: "f/data_team/etl_pipeline",
    });
    expect(nodeById(d, "task:f/ml/train_model")).toMatchObject({
      taskType: "script",
      options: { timeout: 3600, tag: "gpu" },
    });
  });

  it("script modules: the main script dispatches to its companion modules", () => {
    const d = analyzeFixture("script-modules");
    expect(edgeList(d)).toEqual(chain("start", "task:./extract.ts", "task:./transform.ts", "return:1", "end"));
    expect(nodeById(d, "task:./extract.ts")).toMatchObject({
      taskType: "script",
      path: "./extract.ts",
      label: "./extract.ts",
    });
  });

  it("script modules: a companion module is a plain function, drawn with a warning", () => {
    for (const name of ["script-module-extract", "script-module-transform"] as const) {
      const d = analyzeFixture(name);
      expect(d.workflow).toMatchObject({ name: "main", dialect: "function" });
      expect(edgeList(d)).toEqual(chain("start", "return:1", "end"));
      expect(warningCodes(d)).toEqual(["PLAIN_FUNCTION_ENTRY"]);
    }
  });

  it("error handling: try path and catch path, each ending in a return", () => {
    const d = analyzeFixture("error-handling");
    expect(edgeList(d)).toEqual([
      "start -> try:1",
      "try:1 -[try]-> task:riskyOperation",
      "task:riskyOperation -> return:1",
      "try:1 -[catch]-> catch:1",
      "catch:1 -> task:fallback",
      "task:fallback -> return:2",
      "return:1 -> end",
      "return:2 -> end",
    ]);
    expect(nodeById(d, "catch:1")).toMatchObject({ kind: "catch", label: "catch (e)" });
    // The try block may stop before its task, so keys after it are not certain — but fallback is a new name.
    expect(nodeById(d, "task:fallback").approximateKey).toBeUndefined();
  });

  it("retry with backoff: a loop group containing try/catch, a rethrow and a sleep", () => {
    const d = analyzeFixture("retry-backoff");
    expect(nodeById(d, "loop:1")).toMatchObject({
      kind: "loop",
      label: "for (let attempt = 1; attempt <= maxRetries; attempt++)",
    });
    for (const id of ["try:1", "task:callExternalApi", "return:1", "catch:1", "branch:1", "throw:1", "sleep:sleep"]) {
      expect(nodeById(d, id)).toMatchObject({ parent: "loop:1", repeated: true });
    }
    expect(nodeById(d, "task:callExternalApi").approximateKey).toBe(true);
    expect(nodeById(d, "sleep:sleep")).toMatchObject({
      duration: { value: { $expr: "delay" }, unit: "s" },
      label: "sleep(delay)",
    });
    expect(nodeById(d, "throw:1").label).toBe("throw e");
    expect(edgeList(d)).toEqual([
      "start -> loop:1",
      "loop:1 -[body]-> try:1",
      "try:1 -[try]-> task:callExternalApi",
      "task:callExternalApi -> return:1",
      "try:1 -[catch]-> catch:1",
      "catch:1 -> branch:1",
      "branch:1 -[true]-> throw:1",
      "branch:1 -[false]-> sleep:sleep",
      "loop:1 -[done]-> end",
      "sleep:sleep -> end",
      "return:1 -> end",
      "throw:1 -[error]-> end",
    ]);
    expect(d.edges.some((e) => "back" in e)).toBe(false);
  });
});
