/**
 * What the Python worker of the worker protocol cannot write is the run's failure, at once and
 * with its cause (not three lease expiries and a `LeaseExpiredError`): values that are not JSON
 * (a set, a datetime) as a workflow's result, a task's result or a step's value, and writes the
 * server refuses for their size. `sluice preview` (the stdio host) applies the same rule. A
 * `task_script` of a path nobody registered (the park answered 404 `UNKNOWN_WORKFLOW`) raises a
 * `TaskError` naming it in the workflow, on every replay, instead of costing three lease expiries.
 * Real `sluice dev` and `sluice enqueue --wait`, real python3.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { type SluiceProcess, spawnSluice } from "../helpers/processes.js";

const FILES = {
  "f/qa/pyerr.py": `import datetime
from wmill import step, task, workflow

@task
async def boom():
    return {1, 2, 3}

@task
async def take(s: str):
    return len(s)

@workflow
async def main(where: str):
    if where == "main":
        return datetime.datetime.now()
    if where == "step":
        return await step("s", lambda: {1, 2})
    if where == "big":
        return "y" * 2_000_000
    if where == "at_limit":
        return "e" * (1024 * 1024 - 2)  # its JSON is 1 MiB, the limit, exactly
    if where == "big_arg":
        return await take("a" * 2_000_000)
    if where == "big_step":
        try:
            await step("big", lambda: "x" * 2_000_000)
        except Exception as e:
            return f"caught {type(e).__name__}: {e}"
    return await boom()
`,
  "f/qa/missing.py": `import asyncio
from wmill import sleep, task, task_flow, task_script, workflow
from wmill.client import TaskError

@task
async def double(n):
    return n * 2

@workflow
async def main(mode: str):
    if mode == "uncaught":
        return await task_script("f/nope/missing")()
    out = []
    # Twice: the sleep parks the run and the replay asks for the unknown paths again.
    for _ in range(2):
        got = await asyncio.gather(double(2), task_script("f/nope/a")(), task_script("f/qa/helper")(x=1),
                                   task_flow("f/nope/b")(), return_exceptions=True)
        out.append([f"{type(r).__name__} {r.step_key}: {r}" if isinstance(r, TaskError) else r for r in got])
        await sleep(1)
    return out
`,
  "f/qa/badstr.py": `from wmill import task, workflow
from wmill.client import TaskError

class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no message")

@task
def raiser():
    raise Unprintable()

@workflow
async def main(where: str):
    if where == "main":
        raise Unprintable()
    try:
        return await raiser()
    except TaskError as e:
        return f"caught: {e}"
`,
  "f/qa/helper.py": `def main(x: int = 0):
    return x + 100
`,
};
/** The default host (the worker protocol), whatever this test run's environment says. */
const ENV = { SLUICE_PYTHON_HOST: "" };

interface RunJson {
  id: string;
  status: string;
  attempt: number;
  result: unknown;
  error: { name: string; message: string; code?: string } | null;
}

describe("the Python worker of the worker protocol fails a run it cannot write, at once and with the cause", () => {
  let root: string;
  let dev: SluiceProcess;
  beforeAll(async () => {
    root = makeProject(FILES, "sluice-py-failures-");
    // shared: it serves every test of the file (unshared processes are killed after each test)
    dev = spawnSluice(["dev", ".", "--port", "0"], root, ENV, { shared: true });
    await dev.waitFor(/claiming 4 workflow\(s\) from http:\/\/127\.0\.0\.1:\d+/, 30_000);
  }, 40_000);
  afterAll(async () => {
    dev?.proc.kill("SIGTERM");
    await dev?.exited;
  });

  /** Enqueues and waits (a hang would be a lease expiry away, ~30 s per attempt: 10 s is plenty). */
  const run = async (workflow: string, payload: unknown): Promise<RunJson> => {
    const enq = spawnSluice(
      ["enqueue", workflow, JSON.stringify(payload), "--wait", "--timeout", "10s", "--json"],
      root,
    );
    await enq.exited;
    expect(enq.stdout(), enq.stderr() + dev.output()).toMatch(/^\{/);
    return JSON.parse(enq.stdout()) as RunJson;
  };

  it.each([
    ["main", "result of run", "datetime"],
    ["task", "result of task 'boom' (run", "set"],
    ["step", 'value of step "s"', "set"],
  ])(
    "a %s value that is not JSON fails the run on its first attempt, naming it",
    async (where, what, type) => {
      const out = await run("f/qa/pyerr", { where });
      expect(out.status, dev.output()).toBe("failed");
      expect(out.attempt).toBe(1);
      expect(out.error!.message).toContain(what);
      expect(out.error!.message).toContain(
        `is not JSON-serialisable (Object of type ${type} is not JSON serializable)`,
      );
      expect(out.error!.message).not.toMatch(/heartbeat|lease/i);
      expect(dev.output()).not.toMatch(/could not (finish|park)/);
    },
    20_000,
  );

  it("an exception whose str() raises still ends its run, on its first attempt, saying so (a task's and a workflow's)", async () => {
    const unreadable = "Unprintable (its message could not be read: str() raised RuntimeError)";
    const caught = await run("f/qa/badstr", { where: "task" });
    expect(caught, dev.output()).toMatchObject({ status: "succeeded", result: `caught: ${unreadable}` });
    const failed = await run("f/qa/badstr", { where: "main" });
    expect(failed).toMatchObject({ status: "failed", attempt: 1, error: { name: "Unprintable", message: unreadable } });
    // The stdio host the same way.
    const preview = spawnSluice(["preview", "f/qa/badstr", '{"where": "task"}', "--timeout", "20s"], root, ENV);
    expect(await preview.exited, preview.output()).toBe(0);
    expect(preview.output()).toContain(`caught: ${unreadable}`);
  }, 40_000);

  it("sluice preview (the stdio host) fails the same run the same way instead of converting the value", async () => {
    const preview = spawnSluice(["preview", "f/qa/pyerr", '{"where": "main"}', "--timeout", "20s"], root, ENV);
    expect(await preview.exited).not.toBe(0);
    expect(preview.output()).toMatch(
      /run failed: result of run \S+ is not JSON-serialisable \(Object of type datetime is not JSON serializable\)/,
    );
  }, 30_000);

  it("a result over the size limit fails the run at once; a step's value over it fails the step, which the workflow can catch", async () => {
    const big = await run("f/qa/pyerr", { where: "big" });
    expect(big.status, dev.output()).toBe("failed");
    expect(big.attempt).toBe(1);
    // Named as the engine names it, not as a request body over the API's limit.
    expect(big.error!.message).toBe(
      `could not finish: result of run ${big.id} is 2000002 bytes, over the 1048576-byte limit: store large data elsewhere (a file or object store) and pass a reference`,
    );
    const step = await run("f/qa/pyerr", { where: "big_step" });
    expect(step.status, dev.output()).toBe("succeeded");
    expect(step.result).toBe(
      'caught SluiceError: could not save step "big": value of step "big" is 2000002 bytes, over the 1048576-byte limit: store large data elsewhere (a file or object store) and pass a reference',
    );
  }, 30_000);

  it("a result at the size limit is kept, as the built-in worker keeps it (its write's envelope does not count)", async () => {
    const out = await run("f/qa/pyerr", { where: "at_limit" });
    expect(out.status, dev.output()).toBe("succeeded");
    expect((out.result as string).length).toBe(1024 * 1024 - 2);
  }, 30_000);

  it("task_script of an unknown path raises a TaskError naming it in the workflow, which may catch it, on every replay", async () => {
    const out = await run("f/qa/missing", { mode: "caught" });
    expect(out.status, dev.output()).toBe("succeeded");
    expect(out.attempt).toBe(1);
    const round = (n: string) => [
      4,
      `TaskError f/nope/a${n}: task_script("f/nope/a") cannot run: unknown workflow "f/nope/a"`,
      101,
      `TaskError f/nope/b${n}: task_flow("f/nope/b") cannot run: unknown workflow "f/nope/b"`,
    ];
    const result = (out.result as unknown[][]).map((got) =>
      got.map((v) => (typeof v === "string" ? v.replace(/; known workflows: .*/, "") : v)),
    );
    expect(result).toEqual([round(""), round("#2")]);
    expect(dev.output()).not.toMatch(/could not park/);
  }, 30_000);

  it("task_script of an unknown path, uncaught, fails the run on its first attempt with that TaskError", async () => {
    const out = await run("f/qa/missing", { mode: "uncaught" });
    expect(out.status, dev.output()).toBe("failed");
    expect(out.attempt).toBe(1);
    expect(out.error).toMatchObject({ name: "TaskError" });
    expect(out.error!.message).toMatch(
      /^task_script\("f\/nope\/missing"\) cannot run: unknown workflow "f\/nope\/missing"/,
    );
  }, 20_000);

  // Last: the dev's output then holds a "could not park" line, which the tests above look for.
  it("a task's argument over the size limit fails the park, naming the child's payload", async () => {
    const arg = await run("f/qa/pyerr", { where: "big_arg" });
    expect(arg.status, dev.output()).toBe("failed");
    expect(arg.error!.message).toMatch(
      /^could not park: children\[0\]: payload of child "take" is \d+ bytes, over the 1048576-byte limit/,
    );
  }, 30_000);
});
