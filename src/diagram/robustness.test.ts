import { describe, expect, it } from "vitest";
import { analyzeWorkflowSource } from "./analyze.js";
import { DiagramError, WorkflowSyntaxError } from "./index.js";
import { FIXTURE_NAMES, readFixture } from "./fixtures.js";
import { analyzeFixture, chain, edgeList, nodeById, warningCodes } from "./testkit.js";
import { validateDiagram } from "./validate.js";

describe("every fixture", () => {
  it.each(FIXTURE_NAMES)("%s: a valid DAG, JSON-serialisable, and the same on every run", (name) => {
    const d = analyzeFixture(name);
    expect(validateDiagram(d)).toEqual([]);
    expect(JSON.parse(JSON.stringify(d))).toEqual(d);
    expect(analyzeWorkflowSource(readFixture(name), `${name}.ts`)).toEqual(d);
  });
});

describe("the documented example", () => {
  it("gives the ids shown in the TSDoc of analyzeWorkflowSource", () => {
    const diagram = analyzeWorkflowSource(`
      export const main = workflow(async (url: string) => {
        const data = await task(fetchData)(url);
        await sleep(5);
        return data;
      });`);
    expect(diagram.nodes.map((n) => n.id)).toEqual(["start", "task:fetchData", "sleep:sleep", "return:1", "end"]);
  });
});

describe("syntax errors", () => {
  it("throw WorkflowSyntaxError with a stable code and the position", () => {
    const source = "export const main = workflow(async () => {\n  await task(a)(;\n});";
    let caught: unknown;
    try {
      analyzeWorkflowSource(source, "broken.ts");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(WorkflowSyntaxError);
    expect(caught).toBeInstanceOf(DiagramError);
    const error = caught as WorkflowSyntaxError;
    expect(error.code).toBe("DIAGRAM_SYNTAX_ERROR");
    expect(error.name).toBe("WorkflowSyntaxError");
    expect(error.fileName).toBe("broken.ts");
    expect([error.line, error.column]).toEqual([2, 17]);
    expect(error.problems[0]).toMatchObject({ line: 2, column: 17, tsCode: 1005, message: "')' expected." });
    expect(error.message).toBe("broken.ts:2:17: ')' expected. — fix the syntax error to see the workflow diagram");
  });

  it("an unclosed workflow reports where the parser gave up", () => {
    expect(() => analyzeWorkflowSource("export const main = workflow(async () => {\n  await sleep(1);\n")).toThrow(
      expect.objectContaining({ code: "DIAGRAM_SYNTAX_ERROR", line: 3 }),
    );
  });
});

describe("code the analyser does not understand", () => {
  it("a module without a workflow gives start → end and NO_WORKFLOW", () => {
    const d = analyzeFixture("task-options-interface");
    expect(d.workflow).toBeNull();
    expect(edgeList(d)).toEqual(chain("start", "end"));
    expect(warningCodes(d)).toEqual(["NO_WORKFLOW"]);
    expect(analyzeWorkflowSource("").nodes.map((n) => n.kind)).toEqual(["start", "end"]);
  });

  it("several workflows: main is drawn, with a warning naming the others", () => {
    const d = analyzeWorkflowSource(`
      export const other = workflow(async () => { await sleep(1); });
      export const main = workflow(async () => { await step("x", () => 1); });`);
    expect(d.workflow?.name).toBe("main");
    expect(edgeList(d)).toEqual(chain("start", "step:x", "end"));
    expect(d.warnings[0]).toMatchObject({ code: "MULTIPLE_WORKFLOWS", line: 3 });
    expect(d.warnings[0]?.message).toContain("other");
  });

  it("anonymous, computed and nested primitives are drawn with approximate keys and warnings", () => {
    const d = analyzeWorkflowSource(`
      const fns = [async () => 1];
      const triple = task(async (n: number) => n * 3);
      export const main = workflow(async (id: string) => {
        await task(async (x: number) => x)(1);
        await triple(2);
        await task(fns[0])();
        await step(\`load-\${id}\`, () => 1);
        await step("outer", () => task(fns[0])());
      });`);
    expect(d.nodes.slice(1, -1).map((n) => [n.id, n.approximateKey ?? false])).toEqual([
      ["task:task", true],
      ["task:triple", true],
      ["task:fns[0]", true],
      ["step:load-${id}", true],
      ["step:outer", false],
    ]);
    expect(warningCodes(d)).toEqual([
      "ANONYMOUS_TASK",
      "ANONYMOUS_TASK",
      "UNRESOLVED_TASK",
      "DYNAMIC_KEY",
      "NESTED_PRIMITIVE",
    ]);
  });

  it("code after a return is left out with a warning", () => {
    const d = analyzeWorkflowSource(`
      export const main = workflow(async () => {
        return 1;
        await sleep(5);
      });`);
    expect(edgeList(d)).toEqual(chain("start", "return:1", "end"));
    expect(d.warnings).toEqual([expect.objectContaining({ code: "UNREACHABLE_CODE", line: 4 })]);
  });

  it("labelled jumps are approximated with a warning", () => {
    const d = analyzeWorkflowSource(`
      export const main = workflow(async (rows: number[][]) => {
        outer: for (const row of rows) {
          for (const cell of row) {
            if (cell < 0) break outer;
            await step("cell", () => cell);
          }
        }
      });`);
    expect(warningCodes(d)).toEqual(["LABELED_JUMP"]);
    expect(validateDiagram(d)).toEqual([]);
  });

  it("unusual but valid TypeScript never throws", () => {
    const source = `
      import type { Foo } from "./foo.js";
      enum Color { Red, Green }
      namespace NS { export const x = 1; }
      class Svc { #p = 1; get v() { return this.#p; } static async go() { return task(a)(); } }
      declare const a: any;
      export const main = workflow(async <T,>({ id, ...rest }: { id: string }, [first] = [1]) => {
        const o = { async m() { await sleep(1); }, [Color.Red]: 2, ...rest };
        label: { if (id) break label; }
        using _ = null as any;
        const gen = function* () { yield 1; };
        for await (const x of (async function* () { yield 1; })()) await task(a)(x);
        await new Svc().v;
        await (id as any)?.deep?.[0]?.(await step("s", () => 1));
        return void (await waitForApproval()), 1;
      });`;
    const d = analyzeWorkflowSource(source);
    expect(validateDiagram(d)).toEqual([]);
    expect(d.workflow?.params).toEqual(["{ id, ...rest }", "[first]"]);
    expect(d.nodes.filter((n) => n.key !== undefined).map((n) => n.key)).toEqual(["a", "s", "waitForApproval"]);
    expect(nodeById(d, "loop:1").label).toBe("for await (const x of (async function* () { yield 1; })())");
  });

  it("non-literal options keep their source text", () => {
    const d = analyzeWorkflowSource(`
      declare const a: any; declare const defaults: object;
      export const main = workflow(async (t: number) => {
        await task(a, { timeout: t * 2, tag: \`gpu-\${t}\`, retries: -1 })(1);
        await task(a, { ...defaults, tag: "x" })(2);
        await task(a, defaults)(3);
      });`);
    expect(nodeById(d, "task:a").options).toEqual({
      timeout: { $expr: "t * 2" },
      tag: { $expr: "`gpu-${t}`" },
      retries: -1,
    });
    expect(nodeById(d, "task:a#2").options).toEqual({ $options: { $expr: '{ ...defaults, tag: "x" }' } });
    expect(nodeById(d, "task:a#3").options).toEqual({ $options: { $expr: "defaults" } });
  });

  it("JavaScript and TSX files parse with their own grammar", () => {
    const js = analyzeWorkflowSource("export const main = workflow(async (x) => { await sleep(1); });", "wf.js");
    expect(js.fileName).toBe("wf.js");
    expect(edgeList(js)).toEqual(chain("start", "sleep:sleep", "end"));
    const tsx = analyzeWorkflowSource(
      "const el = <div/>;\nexport const main = workflow(async () => { await sleep(1); });",
      "wf.tsx",
    );
    expect(edgeList(tsx)).toEqual(chain("start", "sleep:sleep", "end"));
  });
});
