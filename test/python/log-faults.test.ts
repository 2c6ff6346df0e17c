/**
 * The Python SDK's log lines when their writes fail, on both Python workers: the `@workflow`
 * files' worker (`python3 -m wmill._wac_worker`, as `sluice dev` starts it) and a `wmill.worker`
 * program, each against `sluice server --workers none` through a proxy that fails or alters
 * their log writes (test/helpers/log-fault-proxy.ts; every other request reaches the real server).
 *   - A log write answered 500 (twice) keeps its lines: they are sent again while the run runs.
 *   - The run's last lines, answered 500, are sent again before its finish (which would make the
 *     server drop them).
 *   - Lines whose `ts` reads ahead of the server's clock are refused one by one by the server and
 *     sent again without `ts`, so they are stored.
 *   - (`wmill.worker`) a claim whose lease is lost (the run cancelled) does not send its lines and
 *     says so once on stderr.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LogFault, type LogFaultProxy, type LogsBody, startLogFaultProxy } from "../helpers/log-fault-proxy.js";
import { finished, spawnSluice, type SluiceProcess } from "../helpers/processes.js";
import { makeProject, REPO } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";

const TALK = `import time

def main(ms: int):
    print("first")
    time.sleep(ms / 1000)
    print("second")
    return "done"
`;
const WORKER = `import time
from wmill.worker import register_workflow, run_worker

def log_twice(ctx, p):
    ctx.log("first")
    time.sleep(p["ms"] / 1000)
    ctx.log("second")
    return "done"

register_workflow("py-log-twice", log_twice, max_attempts=1)
# A 3 s lease: heartbeats every second, so a lost lease is seen within one.
run_worker(lease=3.0)
`;

let root: string;
let server: SluiceProcess;
let proxy: LogFaultProxy;
const workers: ChildProcess[] = [];
let out = "";
/** Decides each log write through the proxy (pass by default). */
let fault: (body: LogsBody) => LogFault = () => null;

const cli = (args: string[]) => finished(spawnSluice(args, root));
async function logs(id: string): Promise<Array<{ msg: string; ts: string }>> {
  const r = await cli(["logs", "--run", id, "--json"]);
  expect(r.code, r.err).toBe(0);
  return r.out
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { msg: string; ts: string });
}
async function status(id: string): Promise<string> {
  const r = await cli(["show", id, "--json"]);
  expect(r.code, r.err).toBe(0);
  return (JSON.parse(r.out) as { status: string }).status;
}
async function enqueue(workflow: string, payload: unknown): Promise<string> {
  const r = await cli(["enqueue", workflow, JSON.stringify(payload), "--json"]);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out).id as string;
}

beforeAll(async () => {
  root = makeProject({ "f/p/talk.py": TALK, "py_worker.py": WORKER }, "sluice-py-logfaults-");
  const token = await cli(["token", "create", "--scope", "worker", "--name", "py"]);
  expect(token.code, token.err).toBe(0);
  server = spawnSluice(["server", "--port", "0", "--workers", "none"], root, {}, { shared: true });
  await server.waitFor(/API and UI: (http:\/\/127\.0\.0\.1:\d+)/, 60_000);
  const url = /API and UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())![1]!;
  proxy = await startLogFaultProxy(url, (b) => fault(b));
  const env = {
    ...process.env,
    SLUICE_URL: proxy.url,
    SLUICE_TOKEN: token.out.trim(),
    PYTHONPATH: join(REPO, "sdk-python"),
    PYTHONUNBUFFERED: "1",
  };
  const wac = spawn("python3", ["-m", "wmill._wac_worker"], { cwd: root, env, stdio: ["pipe", "pipe", "pipe"] });
  // What `sluice dev` tells it: the names to claim.
  wac.stdin!.write(`${JSON.stringify({ workflows: ["f/p/talk"] })}\n`);
  const program = spawn("python3", [join(root, "py_worker.py")], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  for (const w of [wac, program]) {
    workers.push(w);
    w.stdout!.on("data", (d) => (out += d));
    w.stderr!.on("data", (d) => (out += d));
  }
  await eventually(async () => {
    const r = await cli(["enqueue", "f/p/talk", '{"ms": 0}', "--wait", "--timeout", "5s", "--json"]);
    return r.code === 0;
  }, 30_000);
}, 90_000);

afterAll(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill("SIGKILL");
  await proxy?.close();
  if (server) {
    server.proc.kill("SIGTERM");
    await server.exited;
  }
});

const INTERNAL = { answer: { status: 500, body: { error: { code: "INTERNAL", message: "internal error" } } } };

describe.each([
  ["the @workflow files' worker (wmill._wac_worker)", "f/p/talk"],
  ["a wmill.worker program", "py-log-twice"],
])("%s", (_name, workflow) => {
  it("a log write answered 500 keeps its lines: they are sent again while the run runs", async () => {
    let failures = 2;
    fault = () => (failures-- > 0 ? INTERNAL : null);
    const id = await enqueue(workflow, { ms: 6_000 });
    const mid = await eventually(async () => {
      const lines = await logs(id);
      return lines.some((l) => l.msg === "first") ? lines : null;
    }, 12_000);
    expect(mid.map((l) => l.msg)).toEqual(["first"]);
    expect(await status(id)).toBe("running");
    expect(failures).toBeLessThan(0);
    await eventually(async () => (await status(id)) === "succeeded", 20_000);
    expect((await logs(id)).map((l) => l.msg)).toEqual(["first", "second"]);
  }, 60_000);

  it("the last lines' write answered 500 is sent again before the finish", async () => {
    // The run's lines all go in its last write (no wait between them); its first send fails.
    let failures = 1;
    fault = (b) => (b.lines.some((l) => l.message === "second") && failures-- > 0 ? INTERNAL : null);
    const id = await enqueue(workflow, { ms: 0 });
    await eventually(async () => (await status(id)) === "succeeded", 20_000);
    expect(failures).toBeLessThan(0);
    expect((await logs(id)).map((l) => l.msg)).toEqual(["first", "second"]);
  }, 60_000);

  it("lines with a ts ahead of the server's clock are refused one by one and sent again without it", async () => {
    let skewed = 1;
    fault = (b) =>
      skewed-- > 0 ? { body: { ...b, lines: b.lines.map((l) => ({ ...l, ts: (l.ts ?? 0) + 600_000 })) } } : null;
    const id = await enqueue(workflow, { ms: 1_500 });
    await eventually(async () => (await status(id)) === "succeeded", 20_000);
    expect(skewed).toBeLessThan(0);
    const lines = await logs(id);
    expect(lines.map((l) => l.msg)).toEqual(["first", "second"]);
    expect(Date.parse(lines[0]!.ts)).toBeLessThan(Date.now() + 60_000);
    expect(out).toMatch(new RegExp(`run ${id}: the server refused a log line .*ahead of the server's clock`));
  }, 60_000);
});

describe("a wmill.worker program", () => {
  it("a claim whose lease is lost neither sends nor retries its lines, and says so once", async () => {
    fault = () => null;
    const before = proxy.logWrites.length;
    const id = await enqueue("py-log-twice", { ms: 4_000 });
    await eventually(async () => (await logs(id)).some((l) => l.msg === "first"), 10_000);
    const cancel = await cli(["cancel", id]);
    expect(cancel.code, cancel.err).toBe(0);
    await eventually(() => out.includes(`run ${id}: this claim's lease is lost`), 15_000);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(out.match(new RegExp(`run ${id}: this claim's lease is lost`, "g")), out).toHaveLength(1);
    expect(out).not.toMatch(new RegExp(`run ${id}: logs failed`));
    const sent = proxy.logWrites.slice(before).flatMap((b) => b.lines.map((l) => l.message));
    expect(sent).toEqual(["first"]);
    expect((await logs(id)).map((l) => l.msg)).toEqual(["first"]);
  }, 60_000);
});
