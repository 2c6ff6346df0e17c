/**
 * The Go SDK's log lines when their writes fail, as a user runs it: `sluice server --workers
 * none`, the order-worker example built from sdk-go/examples, and a proxy between them that
 * fails or alters the worker's log writes (test/helpers/log-fault-proxy.ts; every other
 * request passes through to the real server).
 *   - A log write answered 500 (twice) keeps its lines: they are sent again later, while the
 *     run runs, and none is lost.
 *   - Lines whose `ts` reads ahead of the server's clock are refused one by one by the server;
 *     the SDK sends them again without `ts`, so they are stored.
 *   - A claim whose lease is lost (the run cancelled) does not send or retry its lines and says
 *     so once on stderr.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LogFault, type LogFaultProxy, type LogsBody, startLogFaultProxy } from "../helpers/log-fault-proxy.js";
import { finished, spawnSluice, type SluiceProcess } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { GO_ENV, HAS_GO, SDK, SKIP_REASON } from "./go-env.js";

describe.skipIf(!HAS_GO)(`the Go SDK's log lines when their writes fail ${HAS_GO ? "" : SKIP_REASON}`, () => {
  let root: string;
  let server: SluiceProcess;
  let proxy: LogFaultProxy;
  let worker: ChildProcess;
  let workerErr = "";
  /** Decides each log write through the proxy (pass by default). */
  let fault: (body: LogsBody) => LogFault = () => null;

  const cli = (args: string[]) => finished(spawnSluice(args, root));
  const logs = async (id: string) => {
    const r = await cli(["logs", "--run", id, "--json"]);
    expect(r.code, r.err).toBe(0);
    return r.out
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { msg: string; ts: string });
  };
  const status = async (id: string) => {
    const r = await cli(["show", id, "--json"]);
    expect(r.code, r.err).toBe(0);
    return (JSON.parse(r.out) as { status: string }).status;
  };
  const enqueue = async (payload: unknown) => {
    const r = await cli(["enqueue", "log-twice", JSON.stringify(payload), "--json"]);
    expect(r.code, r.err).toBe(0);
    return JSON.parse(r.out).id as string;
  };

  beforeAll(async () => {
    root = makeProject({}, "sluice-go-logfaults-");
    const bin = join(tempDir("sluice-go-bin-"), "order-worker");
    mkdirSync(GO_ENV.GOCACHE!, { recursive: true });
    const build = spawnSync("go", ["build", "-o", bin, "./examples/order-worker"], {
      cwd: SDK,
      env: { ...process.env, ...GO_ENV },
      encoding: "utf8",
    });
    expect(build.status, build.stderr).toBe(0);
    const token = await cli(["token", "create", "--scope", "worker", "--name", "go-worker"]);
    expect(token.code, token.err).toBe(0);
    server = spawnSluice(["server", "--port", "0", "--workers", "none"], root, {}, { shared: true });
    await server.waitFor(/API and UI: (http:\/\/127\.0\.0\.1:\d+)/, 60_000);
    const url = /API and UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())![1]!;
    proxy = await startLogFaultProxy(url, (b) => fault(b));
    worker = spawn(bin, [], {
      // A 3 s lease: heartbeats every second, so a lost lease is seen within one.
      env: { ...process.env, SLUICE_URL: proxy.url, SLUICE_TOKEN: token.out.trim(), ORDER_WORKER_LEASE_MS: "3000" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    worker.stdout!.on("data", (d) => (workerErr += d));
    worker.stderr!.on("data", (d) => (workerErr += d));
    await eventually(() => /serving fulfill-order/.test(workerErr), 20_000);
    await eventually(async () => (await cli(["runs", "--json"])).code === 0, 20_000);
  }, 180_000);

  afterAll(async () => {
    if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill("SIGKILL");
    await proxy?.close();
    if (server) {
      server.proc.kill("SIGTERM");
      await server.exited;
    }
  });

  it("a log write answered 500 keeps its lines: they are sent again while the run runs", async () => {
    let failures = 2;
    fault = () =>
      failures-- > 0 ? { answer: { status: 500, body: { error: { code: "INTERNAL", message: "boom" } } } } : null;
    const id = await enqueue({ ms: 5_000 });
    const mid = await eventually(async () => {
      const lines = await logs(id);
      return lines.some((l) => l.msg === "first") ? lines : null;
    }, 10_000);
    expect(mid.map((l) => l.msg)).toEqual(["first"]);
    expect(await status(id)).toBe("running");
    expect(failures).toBeLessThan(0);
    await eventually(async () => (await status(id)) === "succeeded", 20_000);
    expect((await logs(id)).map((l) => l.msg)).toEqual(["first", "second"]);
  }, 60_000);

  it("lines with a ts ahead of the server's clock are refused one by one and sent again without it", async () => {
    // The worker's clock reads ten minutes ahead (as seen by the server) for the run's first write.
    let skewed = 1;
    fault = (b) =>
      skewed-- > 0 ? { body: { ...b, lines: b.lines.map((l) => ({ ...l, ts: (l.ts ?? 0) + 600_000 })) } } : null;
    const id = await enqueue({ ms: 1_500 });
    await eventually(async () => (await status(id)) === "succeeded", 20_000);
    expect(skewed).toBeLessThan(0);
    const lines = await logs(id);
    expect(lines.map((l) => l.msg)).toEqual(["first", "second"]);
    // Stamped by the server when it received it again: not ten minutes ahead.
    expect(Date.parse(lines[0]!.ts)).toBeLessThan(Date.now() + 60_000);
    expect(workerErr).toMatch(
      /the server refused a log line .*ahead of the server's clock.*sending it again without its time/,
    );
  }, 60_000);

  it("a claim whose lease is lost neither sends nor retries its lines, and says so once", async () => {
    fault = () => null;
    const before = proxy.logWrites.length;
    const id = await enqueue({ ms: 4_000 });
    await eventually(async () => (await logs(id)).some((l) => l.msg === "first"), 10_000);
    const cancel = await cli(["cancel", id]);
    expect(cancel.code, cancel.err).toBe(0);
    // The handler logs "second" 4 s after "first", after a heartbeat found the lease lost.
    await eventually(() => workerErr.includes(`run ${id}: this claim's lease is lost`), 15_000);
    await new Promise((r) => setTimeout(r, 1_500));
    const notes = workerErr.match(new RegExp(`run ${id}: this claim's lease is lost`, "g"));
    expect(notes, workerErr).toHaveLength(1);
    expect(workerErr).not.toMatch(new RegExp(`run ${id}: logs failed`));
    // Only the write of "first" was sent: "second" was not (the server would have dropped it).
    const sent = proxy.logWrites.slice(before).flatMap((b) => b.lines.map((l) => l.message));
    expect(sent).toEqual(["first"]);
    expect((await logs(id)).map((l) => l.msg)).toEqual(["first"]);
  }, 60_000);
});
