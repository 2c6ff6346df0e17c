/**
 * The real binary, on both Python hosts (the worker protocol's Python worker, the default, and the
 * stdio host bridge, `SLUICE_PYTHON_HOST=bridge`): an `async def` task whose code blocks the event
 * loop (`time.sleep`, a computation in C) past its `timeout` fails on time with TASK_TIMEOUT, its code
 * is stopped, and the other runs go on; a sync task past its timeout is stopped in its thread; a
 * loop blocked without a timeout is reported.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finished, type SluiceProcess, spawnSluice, startDev, stopDev } from "../helpers/processes.js";
import { delay } from "../helpers/tmp.js";

const SLEEPY = `import time
from wmill import task, workflow

@task(timeout=1)
async def slow(marker: str):
    time.sleep(6)
    open(marker, "w").write("ran on")
    return "late"

@workflow
async def main(marker: str):
    return await slow(marker)
`;
/** A computation in C that releases the GIL and no signal interrupts (about 4 s here). */
const CRUNCH = `import hashlib, time
from wmill import task, workflow

@task(timeout=1)
async def crunch():
    t = time.perf_counter()
    hashlib.pbkdf2_hmac("sha256", b"x", b"y", 200000)
    per = (time.perf_counter() - t) / 200000
    hashlib.pbkdf2_hmac("sha256", b"x", b"y", int(4 / per))
    return "late"

@workflow
async def main():
    return await crunch()
`;
const THREADED = `import time
from wmill import task, workflow

@task(timeout=1)
def slow(marker: str):
    for _ in range(40):
        time.sleep(0.1)
    open(marker, "w").write("ran on")
    return "late"

@workflow
async def main(marker: str):
    return await slow(marker)
`;
/** A plain script run with `task_script(…, timeout=1)`: its sync `main` is stopped as a task's is. */
const SCRIPTED = `from wmill import task_script, workflow

@workflow
async def main(marker: str):
    return await task_script("f/t/slowscript", timeout=1)(marker=marker)
`;
const SLOW_SCRIPT = `import time

def main(marker: str):
    for _ in range(40):
        time.sleep(0.1)
    open(marker, "w").write("ran on")
    return "late"
`;
const STALL = `import time
from wmill import task, workflow

@task
async def stall():
    time.sleep(3)
    return "woke"

@workflow
async def main():
    return await stall()
`;
const QUICK = `from wmill import workflow

@workflow
async def main():
    return "quick"
`;

const FILES = {
  "f/t/sleepy.py": SLEEPY,
  "f/t/crunch.py": CRUNCH,
  "f/t/threaded.py": THREADED,
  "f/t/scripted.py": SCRIPTED,
  "f/t/slowscript.py": SLOW_SCRIPT,
  "f/t/stall.py": STALL,
  "f/t/quick.py": QUICK,
};

interface RunJson {
  status: string;
  result: unknown;
  error: { message: string } | null;
  createdAt: string;
  startedAt: string;
  finishedAt: string;
}

const took = (r: RunJson) => Date.parse(r.finishedAt) - Date.parse(r.startedAt);

describe.each([
  { host: "the worker protocol's Python worker", env: {}, ready: /claiming 7 workflow\(s\)/, who: "worker" },
  { host: "the stdio host bridge", env: { SLUICE_PYTHON_HOST: "bridge" }, ready: /UI: http/, who: "host" },
])("on $host", ({ env, ready, who }) => {
  let root = "";
  let dev: SluiceProcess;
  beforeAll(async () => {
    ({ root, dev } = await startDev(FILES, env));
    await dev.waitFor(ready, 30_000);
  }, 60_000);
  afterAll(() => stopDev(dev));

  async function enqueued(p: SluiceProcess): Promise<{ code: number | string; run: RunJson }> {
    const { code, out, err } = await finished(p);
    if (!out.trim()) throw new Error(`no run printed (exit ${code}): ${err}\n${dev.output()}`);
    return { code, run: JSON.parse(out) as RunJson };
  }

  describe("a Python async task that blocks the worker's event loop", () => {
    it("in time.sleep past its timeout: fails on time, is stopped, and the other runs go on", async () => {
      const marker = join(root, "ran-on.txt");
      const started = Date.now();
      const sleepy = spawnSluice(["enqueue", "f/t/sleepy", JSON.stringify({ marker }), "--wait", "--json"], root);
      await delay(1_000); // the task sleeps by now (the CLI starts in about 0.8 s)
      const quick = spawnSluice(["enqueue", "f/t/quick", "{}", "--wait", "--json"], root);
      const slow = await enqueued(sleepy);
      expect(slow.code).toBe(1);
      expect(slow.run.status).toBe("failed");
      expect(slow.run.error!.message).toMatch(/the task ran longer than its timeout of 1 s and was stopped/);
      expect(took(slow.run)).toBeLessThan(3_000);
      const other = await enqueued(quick);
      expect(other).toMatchObject({ code: 0, run: { status: "succeeded", result: "quick" } });
      // Not held up until the sleep of 6 s ends.
      expect(Date.parse(other.run.finishedAt) - Date.parse(other.run.createdAt)).toBeLessThan(3_000);
      await delay(6_500 - (Date.now() - started));
      expect(existsSync(marker)).toBe(false); // its code did not run on after the sleep
    }, 60_000);

    it("in a computation in C past its timeout: the task's run fails on time all the same", async () => {
      const { code, run } = await enqueued(spawnSluice(["enqueue", "f/t/crunch", "{}", "--wait", "--json"], root));
      expect(code).toBe(1);
      expect(run.status).toBe("failed");
      expect(run.error!.message).toMatch(/the task ran longer than its timeout of 1 s and was stopped/);
      // The parent goes on once the loop is free again (its code runs there too); the task failed on time.
      const { code: listed, out } = await finished(spawnSluice(["runs", "--json"], root));
      expect(listed).toBe(0);
      const child = (JSON.parse(out) as Array<RunJson & { task: string | null }>).find((r) => r.task === "crunch")!;
      expect(child).toMatchObject({ status: "failed", error: { code: "TASK_TIMEOUT" } });
      expect(took(child)).toBeLessThan(3_000);
    }, 60_000);

    it("without a timeout: it runs to its end and the stall is reported, naming the run", async () => {
      const { code, run } = await enqueued(spawnSluice(["enqueue", "f/t/stall", "{}", "--wait", "--json"], root));
      expect(code).toBe(0);
      expect(run).toMatchObject({ status: "succeeded", result: "woke" });
      expect(dev.output()).toMatch(
        new RegExp(
          `sluice python ${who}: the event loop has been blocked for 2\\.\\d s by run \\S+'s code \\(a blocking call such as time\\.sleep`,
        ),
      );
    }, 60_000);
  });

  it.each([
    ["a sync task", "f/t/threaded"],
    ["a script's sync main called with task_script(…, timeout=1)", "f/t/scripted"],
  ])(
    "%s past its timeout: fails on time and its thread is stopped",
    async (_, workflow) => {
      const marker = join(root, `${workflow.replaceAll("/", "_")}-ran-on.txt`);
      const p = spawnSluice(["enqueue", workflow, JSON.stringify({ marker }), "--wait", "--json"], root);
      const { code, run } = await enqueued(p);
      expect(code).toBe(1);
      expect(run.error!.message).toMatch(/the task ran longer than its timeout of 1 s and was stopped/);
      expect(took(run)).toBeLessThan(3_000);
      // Its loop of sleeps (4 s from its start, about 1 s before the run ended) would be over by now.
      await delay(4_000);
      expect(existsSync(marker)).toBe(false);
    },
    60_000,
  );
});
