/**
 * `task_script(path)(**args)` / `task_flow(path)(**args)` with arguments the target's `main` does not
 * take (a type its hint refuses, an unknown or a missing parameter) fail the call when the child is
 * started, as an enqueue of the target is refused: the parent's `task` step is written failed with
 * `INVALID_ARGUMENTS` (naming the parameter, its hint and what was given), no child run is created,
 * and the workflow gets a `TaskError` it may catch. What the enqueue check lets through (defaults,
 * `Optional[...]`, unions, `dict`/`list` generics, untyped parameters, `**kwargs`) still starts.
 * On both Python hosts (the worker protocol, the default, and the stdio bridge), and for a TypeScript
 * workflow's `taskScript` (the built-in engine). Real `sluice dev`, `sluice enqueue --wait`, `sluice
 * show`, `sluice runs`; real python3.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SluiceProcess, spawnSluice, startDev, stopDev } from "../helpers/processes.js";

const ADD = `from typing import Optional, Union


def main(n: int, tag: Optional[str] = None, labels: dict[str, str] = None, items: list[int] = None,
         mode: Union[int, str] = 0, free=None, maybe: int | None = None):
    return {"n": n, "tag": tag, "labels": labels, "items": items, "mode": mode, "free": free, "maybe": maybe}
`;

const FILES = {
  "f/qa/add.py": ADD,
  "f/qa/kw.py": "def main(n: int, **rest):\n    return [n, sorted(rest)]\n",
  "f/qa/flow.py": `from wmill import workflow


@workflow
async def main(limit: int = 10):
    return limit * 2
`,
  "f/qa/parent.py": `from wmill import task_flow, task_script, workflow
from wmill.client import TaskError


def failure(e):
    return {"message": str(e), "key": e.step_key, "child": e.child_job_id, "code": (e.result or {}).get("code")}


@workflow
async def main(mode: str):
    if mode == "uncaught":
        return await task_script("f/qa/add")(n="two")
    out = []
    for call in (lambda: task_script("f/qa/add")(n="two"),
                 lambda: task_script("f/qa/add")(n=1, colour="red"),
                 lambda: task_script("f/qa/add")(tag="x"),
                 lambda: task_flow("f/qa/flow")(limit=[1])):
        try:
            out.append(await call())
        except TaskError as e:
            out.append(failure(e))
    out.append(await task_script("f/qa/add")(n=1, tag=None, labels={"a": "b"}, items=[1, 2], mode="m",
                                               free={"any": [1]}, maybe=None))
    out.append(await task_script("f/qa/add")(n=2, maybe=3, mode=4))
    out.append(await task_script("f/qa/kw")(n="two", extra=1))
    out.append(await task_flow("f/qa/flow")())
    return out
`,
  "f/ts/sum.ts": "export function main(x: number, y: number) { return x + y; }\n",
  "f/ts/parent.ts": `import { workflow, taskScript, TaskError } from "windmill-client";
export const main = workflow(async () => {
  const out: unknown[] = [];
  for (const [path, args] of [["f/qa/add", { n: "two" }], ["f/ts/sum", { x: 1 }], ["f/ts/sum", { x: 1, y: 2 }]] as const) {
    try {
      out.push(await taskScript(path)(args));
    } catch (e) {
      const err = e as TaskError;
      out.push({ message: err.message, key: err.step_key, child: err.child_job_id, code: (err.result as { code: string }).code });
    }
  }
  return out;
});
`,
};

interface RunJson {
  id: string;
  status: string;
  attempt: number;
  result: unknown;
  error: { name: string; message: string; code?: string } | null;
  steps: Array<{ key: string; status: string; childId: string | null; error: Record<string, unknown> | null }>;
  children: Array<{ workflow: string }>;
}

const TYPE = 'parameter "n" of f/qa/add is int, so it takes a whole number: got "two" (a string)';

function refused(key: string, message: RegExp | string) {
  return {
    message: typeof message === "string" ? expect.stringContaining(message) : expect.stringMatching(message),
    key,
    child: null,
    code: "INVALID_ARGUMENTS",
  };
}

for (const [host, env] of [
  ["the worker protocol (the default)", { SLUICE_PYTHON_HOST: "" }],
  ["the stdio bridge", { SLUICE_PYTHON_HOST: "bridge" }],
] as const) {
  describe(`task_script/task_flow arguments are checked when the child starts, on ${host}`, { timeout: 90_000 }, () => {
    let root: string;
    let dev: SluiceProcess;
    beforeAll(async () => {
      ({ root, dev } = await startDev(FILES, env));
      if (!env.SLUICE_PYTHON_HOST) await dev.waitFor(/claiming \d+ workflow\(s\) from http/, 30_000);
    }, 60_000);
    afterAll(() => stopDev(dev));

    const cli = async (...args: string[]) => {
      const p = spawnSluice(args, root, env);
      const code = await p.exited;
      return { code, out: p.stdout(), err: p.stderr() };
    };
    const runCount = async () => (JSON.parse((await cli("runs", "--json", "--limit", "1000")).out) as unknown[]).length;
    const show = async (id: string) => JSON.parse((await cli("show", id, "--json")).out) as RunJson;

    it("uncaught: the run fails on its first attempt naming the parameter; the step failed, no child run", async () => {
      const before = await runCount();
      const id = `uncaught-${env.SLUICE_PYTHON_HOST || "protocol"}`;
      const enq = await cli("enqueue", "f/qa/parent", '{"mode": "uncaught"}', "--id", id, "--wait", "--timeout", "20s");
      expect(enq.code, dev.output()).toBe(1);
      expect(enq.err).toContain(TYPE);
      const run = await show(id);
      expect(run).toMatchObject({ status: "failed", attempt: 1, error: { name: "TaskError" } });
      expect(run.steps).toEqual([
        expect.objectContaining({
          key: "f/qa/add",
          status: "error",
          childId: null,
          error: expect.objectContaining({ name: "InvalidArgumentsError", code: "INVALID_ARGUMENTS" }),
        }),
      ]);
      expect((run.steps[0]!.error as { message: string }).message).toContain(TYPE);
      expect(run.children).toEqual([]);
      expect(await runCount()).toBe(before + 1); // the parent alone
    });

    it("caught: each refusal is a TaskError the workflow handles; arguments that fit start their child", async () => {
      const enq = await cli("enqueue", "f/qa/parent", '{"mode": "caught"}', "--wait", "--timeout", "30s", "--json");
      expect(enq.code, enq.err + dev.output()).toBe(0);
      const run = JSON.parse(enq.out) as RunJson;
      const add = (n: unknown, extra: Record<string, unknown> = {}) => ({
        n,
        tag: null,
        labels: null,
        items: null,
        mode: 0,
        free: null,
        maybe: null,
        ...extra,
      });
      expect(run.result).toEqual([
        refused("f/qa/add", TYPE),
        refused("f/qa/add#2", /unknown parameter "colour" for f\/qa\/add: its parameters are n, tag, labels/),
        refused("f/qa/add#3", /missing parameter "n" for f\/qa\/add/),
        refused("f/qa/flow", 'parameter "limit" of f/qa/flow is int, so it takes a whole number: got [1] (an array)'),
        add(1, { labels: { a: "b" }, items: [1, 2], mode: "m", free: { any: [1] } }),
        add(2, { maybe: 3, mode: 4 }),
        ["two", ["extra"]],
        20,
      ]);
      const shown = await show(run.id);
      expect(shown.children.map((c) => c.workflow).sort()).toEqual(["f/qa/add", "f/qa/add", "f/qa/flow", "f/qa/kw"]);
    });

    it("a TypeScript workflow's taskScript: a Python target's types, a TypeScript target's names", async () => {
      const enq = await cli("enqueue", "f/ts/parent", "--wait", "--timeout", "30s", "--json");
      expect(enq.code, enq.err + dev.output()).toBe(0);
      expect((JSON.parse(enq.out) as RunJson).result).toEqual([
        refused("f/qa/add", `taskScript("f/qa/add"): ${TYPE}`),
        refused("f/ts/sum", /missing parameter "y" for f\/ts\/sum/),
        3,
      ]);
    });
  });
}
