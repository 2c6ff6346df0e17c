import { describe, expect, it } from "vitest";
import { analyzeWorkflowSource } from "./analyze.js";
import { chain, edgeList, ids, nodeById, warningCodes } from "./testkit.js";
import { validateDiagram } from "./validate.js";

const TASKS = `
async function a(x?: unknown) { return 1 }
async function b(x?: unknown) { return 2 }
async function c(x?: unknown) { return 3 }`;

describe("helpers, callbacks and parallel shapes", () => {
  it("a same-file helper is inlined at each call; its returns continue after the call", () => {
    const d = analyzeWorkflowSource(`${TASKS}
      async function stage(x: number) {
        const r = await task(a)(x);
        if (!r) return null;
        return await task(b)(r);
      }
      export const main = workflow(async () => {
        await stage(1);
        await stage(2);
      });`);
    expect(ids(d)).toEqual(["start", "task:a", "branch:1", "task:b", "task:a#2", "branch:2", "task:b#2", "end"]);
    expect(nodeById(d, "task:a")).toMatchObject({ via: ["stage"], key: "a" });
    expect(edgeList(d)).toEqual([
      "start -> task:a",
      "task:a -> branch:1",
      "branch:1 -[false]-> task:b",
      "branch:1 -[true]-> task:a#2",
      "task:b -> task:a#2",
      "task:a#2 -> branch:2",
      "branch:2 -[false]-> task:b#2",
      "branch:2 -[true]-> end",
      "task:b#2 -> end",
    ]);
    // The first stage may skip b, so the second stage's b count is uncertain.
    expect(nodeById(d, "task:b#2").approximateKey).toBe(true);
  });

  it("Promise.all arms can be async IIFEs with several steps", () => {
    const d = analyzeWorkflowSource(`${TASKS}
      export const main = workflow(async () => {
        await Promise.all([
          (async () => { const x = await task(a)(); await task(b)(x); })(),
          task(c)(),
          Promise.resolve(42),
        ]);
      });`);
    expect(edgeList(d)).toEqual([
      "start -> parallel:1",
      "parallel:1 -> task:a",
      "task:a -> task:b",
      "parallel:1 -> task:c",
      "task:b -> join:1",
      "task:c -> join:1",
      "join:1 -> end",
    ]);
  });

  it("Promise.all(items.map(fn)) is a dynamic fan-out labelled by the array", () => {
    const d = analyzeWorkflowSource(`${TASKS}
      export const main = workflow(async (items: number[]) => {
        const out = await Promise.all(items.map((i) => task(a)(i)));
        return out;
      });`);
    expect(nodeById(d, "parallel:1")).toMatchObject({ label: "items.map", dynamic: true });
    expect(nodeById(d, "task:a")).toMatchObject({ parent: "parallel:1", repeated: true });
    expect(edgeList(d)).toEqual(chain("start", "parallel:1", "task:a", "join:1", "return:1", "end"));
  });

  it("parallel(items, task(fn)) and parallel(items, wrapperVariable)", () => {
    const d = analyzeWorkflowSource(`${TASKS}
      const runB = task(b, { tag: "io" });
      export const main = workflow(async (items: number[]) => {
        await parallel(items, task(a), { concurrency: 2 });
        await parallel(items, runB);
      });`);
    expect(edgeList(d)).toEqual(
      chain("start", "parallel:1", "task:a", "join:1", "parallel:2", "task:b", "join:2", "end"),
    );
    expect(nodeById(d, "task:b")).toMatchObject({ parent: "parallel:2", options: { tag: "io" } });
  });

  it(".then(callback) runs after the promise it follows", () => {
    const d = analyzeWorkflowSource(`${TASKS}
      export const main = workflow(async () => {
        await task(a)().then((r) => task(b)(r));
      });`);
    expect(edgeList(d)).toEqual(chain("start", "task:a", "task:b", "end"));
  });

  it("a callback passed to an unknown function is drawn in place, with a warning", () => {
    const d = analyzeWorkflowSource(`${TASKS}
      import { retry } from "./lib/retry.js";
      export const main = workflow(async () => {
        await retry(() => task(a)(), 3);
      });`);
    expect(edgeList(d)).toEqual(chain("start", "task:a", "end"));
    expect(warningCodes(d)).toEqual(["UNKNOWN_CALLBACK"]);
  });

  it("recursive helpers are cut with a warning", () => {
    const d = analyzeWorkflowSource(`${TASKS}
      async function again(n: number): Promise<void> {
        await task(a)(n);
        if (n > 0) await again(n - 1);
      }
      export const main = workflow(async () => { await again(3); });`);
    expect(warningCodes(d)).toContain("RECURSIVE_HELPER");
    expect(d.nodes.filter((n) => n.kind === "task")).toHaveLength(1);
  });
});

describe("inlining limits", () => {
  it("helpers that call helpers twice per level stop expanding instead of blowing up", () => {
    const levels = Array.from({ length: 30 }, (_, i) =>
      i === 0
        ? "async function h0() { await task(a)(); }"
        : `async function h${i}() { await h${i - 1}(); await h${i - 1}(); }`,
    ).join("\n");
    const started = performance.now();
    const d = analyzeWorkflowSource(`${TASKS}\n${levels}\nexport const main = workflow(async () => { await h29(); });`);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(warningCodes(d)).toContain("INLINE_LIMIT");
    expect(d.nodes.length).toBeLessThan(3000);
    expect(validateDiagram(d)).toEqual([]);
  });
});

describe("name resolution", () => {
  it("aliased imports and namespace imports", () => {
    const d = analyzeWorkflowSource(`${TASKS}
      import { task as t, sleep as pause, workflow as wf } from "windmill-client";
      import * as wmill from "wmill";
      export const main = wf(async () => {
        await t(a)();
        await pause(2);
        await wmill.step("s", () => 1);
        await wmill.task(b)();
      });`);
    expect(edgeList(d)).toEqual(chain("start", "task:a", "sleep:sleep", "step:s", "task:b", "end"));
  });

  it("a module's own sleep function, or one imported from Node, is not the durable sleep", () => {
    const own = analyzeWorkflowSource(`${TASKS}
      async function sleep(ms: number) { await new Promise((r) => setTimeout(r, ms)); }
      export const main = workflow(async () => { await sleep(10); await task(a)(); });`);
    expect(ids(own)).toEqual(["start", "task:a", "end"]);
    const node = analyzeWorkflowSource(`${TASKS}
      import { setTimeout as sleep } from "node:timers/promises";
      export const main = workflow(async () => { await sleep(10); await task(a)(); });`);
    expect(ids(node)).toEqual(["start", "task:a", "end"]);
  });

  it("workflow(function named() {}) and an expression-bodied arrow", () => {
    const named = analyzeWorkflowSource(`${TASKS}
      export const main = workflow(async function run(x: number) { await task(a)(x); });`);
    expect(edgeList(named)).toEqual(chain("start", "task:a", "end"));
    const arrow = analyzeWorkflowSource(`${TASKS}
      export default workflow(async (x: number) => task(a)(x));`);
    expect(arrow.workflow).toMatchObject({ name: "default", params: ["x"] });
    expect(edgeList(arrow)).toEqual(chain("start", "task:a", "end"));
  });

  it("task wrappers held in variables, at module level or inside the workflow", () => {
    const d = analyzeWorkflowSource(`${TASKS}
      const fetchIt = task(a, { timeout: 5 });
      export const main = workflow(async () => {
        const later = taskFlow("f/flows/x");
        await fetchIt(1);
        await later({});
        await fetchIt(2);
      });`);
    expect(edgeList(d)).toEqual(chain("start", "task:a", "task:f/flows/x", "task:a#2", "end"));
    expect(nodeById(d, "task:a#2").options).toEqual({ timeout: 5 });
  });
});
