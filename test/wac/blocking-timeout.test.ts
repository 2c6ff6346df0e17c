/**
 * The real binary: a TypeScript task whose code blocks the event loop (a busy loop) past its
 * `timeout` cannot be stopped before it yields, but when it returns the run fails with the timeout
 * error instead of succeeding with the late result; a worker that takes the run over after the
 * blocked worker's lease ran out fails it at once instead of running the code again.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { finished, type SluiceProcess, spawnSluice, startDev, stopDev } from "../helpers/processes.js";

const BUSY = `import { workflow, task } from "windmill-client";
function busy(ms: number) {
  const end = Date.now() + ms;
  while (Date.now() < end) {}
  return "late";
}
export const main = workflow(async (ms: number) => task(busy, { timeout: 1 })(ms));
`;

let root = "";
let dev: SluiceProcess;
beforeAll(async () => {
  ({ root, dev } = await startDev({ "f/t/busy.ts": BUSY }));
}, 60_000);
afterAll(() => stopDev(dev));

interface RunJson {
  id: string;
  workflow: string;
  task: string | null;
  status: string;
  result: unknown;
  error: { message: string; code?: string } | null;
}

describe("a TypeScript task that blocks the event loop past its timeout", () => {
  it("fails with TASK_TIMEOUT once its code returns, not succeeded with its result", async () => {
    const enq = spawnSluice(["enqueue", "f/t/busy", '{"ms": 2500}', "--wait", "--json"], root);
    const { code, out, err } = await finished(enq);
    expect(code, err + dev.output()).toBe(1);
    const run = JSON.parse(out) as RunJson;
    expect(run.status).toBe("failed");
    expect(run.error!.message).toMatch(/the task ran longer than its timeout of 1 s and was stopped/);
    const runs = spawnSluice(["runs", "--json"], root);
    const listed = await finished(runs);
    expect(listed.code, listed.err).toBe(0);
    const child = (JSON.parse(listed.out) as RunJson[]).find((r) => r.task === "busy")!;
    expect(child).toMatchObject({ status: "failed", result: null, error: { code: "TASK_TIMEOUT" } });
  }, 60_000);

  it("a task that returns within its timeout still succeeds", async () => {
    const enq = spawnSluice(["enqueue", "f/t/busy", '{"ms": 10}', "--wait", "--json"], root);
    const { code, out, err } = await finished(enq);
    expect(code, err).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ status: "succeeded", result: "late" });
  }, 60_000);
});

const COUNTED = `import { appendFileSync } from "node:fs";
import { workflow, task } from "windmill-client";
function busy(ms: number, marker: string) {
  appendFileSync(marker, "ran\\n");
  const end = Date.now() + ms;
  while (Date.now() < end) {}
  return "late";
}
export const main = workflow(async (ms: number, marker: string) => task(busy, { timeout: 1 })(ms, marker));
`;

describe("a blocked TypeScript task whose lease runs out", () => {
  it("is failed with TASK_TIMEOUT by the worker that takes it over, without running its code again", async () => {
    const root = makeProject({ "f/t/counted.ts": COUNTED }, "sluice-ts-takeover-");
    const marker = join(root, "ran.txt");
    const workers = [1, 2].map(() => spawnSluice(["worker", "--lease", "1s", "--concurrency", "2"], root));
    for (const w of workers) await w.waitFor(/ready/, 30_000);
    const enq = spawnSluice(["enqueue", "f/t/counted", JSON.stringify({ ms: 4000, marker }), "--wait", "--json"], root);
    const { code, out, err } = await finished(enq);
    expect(code, err + workers.map((w) => w.output()).join("\n")).toBe(1);
    const run = JSON.parse(out) as RunJson;
    expect(run.status).toBe("failed");
    expect(run.error!.message).toMatch(/the task ran longer than its timeout of 1 s and was stopped/);
    const listed = await finished(spawnSluice(["runs", "--json"], root));
    const child = (JSON.parse(listed.out) as RunJson[]).find((r) => r.task === "busy")!;
    expect(child).toMatchObject({ status: "failed", error: { code: "TASK_TIMEOUT" } });
    expect(existsSync(marker) && readFileSync(marker, "utf8")).toBe("ran\n"); // once, not once per attempt
    for (const w of workers) w.proc.kill("SIGTERM");
    for (const w of workers) expect(await w.exited).toBe(0);
  }, 90_000);
});
