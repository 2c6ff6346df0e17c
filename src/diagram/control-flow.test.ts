import { describe, expect, it } from "vitest";
import { analyzeWorkflowSource } from "./analyze.js";
import { chain, edgeList, ids, nodeById } from "./testkit.js";

/** Wraps a workflow body in the Windmill shape. */
function wf(body: string, before = ""): string {
  return `import { task, step, sleep, workflow, parallel, waitForApproval } from "windmill-client";
async function a(x?: unknown) { return 1 }
async function b(x?: unknown) { return 2 }
async function c(x?: unknown) { return 3 }
${before}
export const main = workflow(async (input: any) => {
${body}
});`;
}

describe("conditionals", () => {
  it("if/else where both arms continue gets a merge, and arms share a key counter start", () => {
    const d = analyzeWorkflowSource(
      wf(`
      if (input.fast) { await task(a)(); } else { await task(b)(); await task(a)(); }
      await task(a)();`),
    );
    expect(edgeList(d)).toEqual([
      "start -> branch:1",
      "branch:1 -[true]-> task:a",
      "branch:1 -[false]-> task:b",
      "task:b -> task:a~2",
      "task:a -> merge:1",
      "task:a~2 -> merge:1",
      "merge:1 -> task:a#2",
      "task:a#2 -> end",
    ]);
    // Both arms' first `a` is the first `a` on its path.
    expect(nodeById(d, "task:a").key).toBe("a");
    expect(nodeById(d, "task:a~2")).toMatchObject({ key: "a" });
    expect(nodeById(d, "merge:1")).toMatchObject({ kind: "merge", closes: "branch:1" });
    // Arms used `a` once each, so the count after the merge is certain.
    expect(nodeById(d, "task:a#2").approximateKey).toBeUndefined();
  });

  it("if without else: the skip edge is labelled false; uneven use makes later keys approximate", () => {
    const d = analyzeWorkflowSource(
      wf(`
      if (input.extra) await task(a)();
      await task(a)();`),
    );
    expect(edgeList(d)).toEqual([
      "start -> branch:1",
      "branch:1 -[true]-> task:a",
      "task:a -> merge:1",
      "branch:1 -[false]-> merge:1",
      "merge:1 -> task:a#2",
      "task:a#2 -> end",
    ]);
    expect(nodeById(d, "task:a#2").approximateKey).toBe(true);
  });

  it("else-if chains nest branches", () => {
    const d = analyzeWorkflowSource(
      wf(`
      if (input.x === 1) return await task(a)();
      else if (input.x === 2) return await task(b)();
      return await task(c)();`),
    );
    expect(edgeList(d)).toEqual([
      "start -> branch:1",
      "branch:1 -[true]-> task:a",
      "task:a -> return:1",
      "branch:1 -[false]-> branch:2",
      "branch:2 -[true]-> task:b",
      "task:b -> return:2",
      "branch:2 -[false]-> task:c",
      "task:c -> return:3",
      "return:1 -> end",
      "return:2 -> end",
      "return:3 -> end",
    ]);
  });

  it("an if that only logs adds nothing", () => {
    const d = analyzeWorkflowSource(
      wf(`
      if (input.debug) console.log("debug");
      await task(a)();`),
    );
    expect(edgeList(d)).toEqual(chain("start", "task:a", "end"));
  });

  it("ternary with task arms", () => {
    const d = analyzeWorkflowSource(wf(`const r = input.ok ? await task(a)() : await task(b)();`));
    expect(nodeById(d, "branch:1").label).toBe("input.ok");
    expect(edgeList(d)).toEqual([
      "start -> branch:1",
      "branch:1 -[true]-> task:a",
      "branch:1 -[false]-> task:b",
      "task:a -> merge:1",
      "task:b -> merge:1",
      "merge:1 -> end",
    ]);
  });

  it("short-circuit && and ?? with a task on the right", () => {
    const d = analyzeWorkflowSource(
      wf(`
      input.notify && (await task(a)());
      const v = input.cached ?? (await task(b)());`),
    );
    expect(edgeList(d)).toEqual([
      "start -> branch:1",
      "branch:1 -[true]-> task:a",
      "task:a -> merge:1",
      "branch:1 -[false]-> merge:1",
      "merge:1 -> branch:2",
      "branch:2 -[nullish]-> task:b",
      "task:b -> merge:2",
      "branch:2 -[defined]-> merge:2",
      "merge:2 -> end",
    ]);
    expect(nodeById(d, "branch:1").label).toBe("input.notify &&");
  });

  it("switch with fallthrough, break and an implicit default", () => {
    const d = analyzeWorkflowSource(
      wf(`
      switch (input.kind) {
        case "x":
        case "y":
          await task(a)();
          break;
        case "z":
          await task(b)();
      }
      await step("after", () => 1);`),
    );
    expect(nodeById(d, "branch:1").label).toBe("switch (input.kind)");
    expect(edgeList(d)).toEqual([
      "start -> branch:1",
      'branch:1 -[case "x"]-> task:a',
      'branch:1 -[case "y"]-> task:a',
      'branch:1 -[case "z"]-> task:b',
      "task:a -> merge:1",
      "task:b -> merge:1",
      "branch:1 -[default]-> merge:1",
      "merge:1 -> step:after",
      "step:after -> end",
    ]);
  });
});

describe("loops", () => {
  it("for…of is a group: body nodes name the loop as parent; no back-edge", () => {
    const d = analyzeWorkflowSource(
      wf(`
      for (const item of input.items) {
        await task(a)(item);
        await sleep(1);
      }
      await task(a)();`),
    );
    expect(nodeById(d, "loop:1")).toMatchObject({ kind: "loop", label: "for (const item of input.items)" });
    expect(nodeById(d, "task:a")).toMatchObject({ parent: "loop:1", repeated: true, approximateKey: true });
    expect(nodeById(d, "sleep:sleep")).toMatchObject({ parent: "loop:1", repeated: true });
    expect(edgeList(d)).toEqual([
      "start -> loop:1",
      "loop:1 -[body]-> task:a",
      "task:a -> sleep:sleep",
      "loop:1 -[done]-> task:a#2",
      "sleep:sleep -> task:a#2",
      "task:a#2 -> end",
    ]);
    expect(nodeById(d, "task:a#2")).toMatchObject({ approximateKey: true });
    expect(nodeById(d, "task:a#2").parent).toBeUndefined();
  });

  it("while (true) has no zero-iteration exit; break and continue leave the body", () => {
    const d = analyzeWorkflowSource(
      wf(`
      while (true) {
        const s = await step("poll", () => input.status);
        if (s === "done") break;
        if (s === "skip") continue;
        await sleep(30);
      }`),
    );
    expect(nodeById(d, "loop:1").label).toBe("while (true)");
    expect(edgeList(d)).toEqual([
      "start -> loop:1",
      "loop:1 -[body]-> step:poll",
      "step:poll -> branch:1",
      "branch:1 -[false]-> branch:2",
      "branch:2 -[false]-> sleep:sleep",
      "sleep:sleep -> end",
      "branch:2 -[true]-> end",
      "branch:1 -[true]-> end",
    ]);
  });

  it("do…while and nested loops", () => {
    const d = analyzeWorkflowSource(
      wf(`
      let i = 0;
      do {
        for (let j = 0; j < 3; j++) await task(a)(j);
        i++;
      } while (i < 2);`),
    );
    expect(nodeById(d, "loop:1").label).toBe("do … while (i < 2)");
    expect(nodeById(d, "loop:2")).toMatchObject({ parent: "loop:1", label: "for (let j = 0; j < 3; j++)" });
    expect(nodeById(d, "task:a")).toMatchObject({ parent: "loop:2" });
    expect(edgeList(d)).toEqual([
      "start -> loop:1",
      "loop:1 -[body]-> loop:2",
      "loop:2 -[body]-> task:a",
      "loop:2 -[done]-> end",
      "task:a -> end",
    ]);
  });

  it("a loop that only computes adds nothing", () => {
    const d = analyzeWorkflowSource(
      wf(`
      let total = 0;
      for (const x of [1, 2, 3]) total += x;
      await task(a)(total);`),
    );
    expect(ids(d)).toEqual(["start", "task:a", "end"]);
  });
});

describe("try/catch/finally", () => {
  it("a throw inside try goes to the catch; finally follows the merge", () => {
    const d = analyzeWorkflowSource(
      wf(`
      try {
        const r = await task(a)();
        if (!r) throw new Error("empty");
        await task(b)(r);
      } catch (err) {
        await step("log", () => String(err));
      } finally {
        await task(c)();
      }`),
    );
    expect(edgeList(d)).toEqual([
      "start -> try:1",
      "try:1 -[try]-> task:a",
      "task:a -> branch:1",
      "branch:1 -[true]-> throw:1",
      "branch:1 -[false]-> task:b",
      "try:1 -[catch]-> catch:1",
      "throw:1 -[throw]-> catch:1",
      "catch:1 -> step:log",
      "task:b -> merge:1",
      "step:log -> merge:1",
      "merge:1 -> task:c",
      "task:c -> end",
    ]);
    expect(nodeById(d, "throw:1").label).toBe('throw new Error("empty")');
  });
});
