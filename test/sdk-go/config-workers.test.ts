/**
 * `workers` in sluice.json: `sluice server` and `sluice dev` start a Go worker command,
 * show its output, hand it SLUICE_URL (and a worker token when the API needs one), and
 * stop it (it drains) when they stop; a killed worker's claims are released at once. Bad
 * entries are refused with the field named.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { validateConfig } from "../../src/cli/config.js";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { GO_ENV, HAS_GO, SDK, SKIP_REASON } from "./go-env.js";

async function cli(args: string[], root: string): Promise<{ code: number | string; out: string; err: string }> {
  const p = spawnSluice(args, root);
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

describe("sluice.json workers: validation", () => {
  it("accepts commands and refuses bad entries naming the field", () => {
    expect(validateConfig({ workers: [{ command: "go run ./cmd/worker", group: "go" }] }).workers).toHaveLength(1);
    expect(() => validateConfig({ workers: {} })).toThrow(/"workers" must be a list such as/);
    expect(() => validateConfig({ workers: [{ command: "" }] })).toThrow(
      /"workers\[0\]\.command" must be a non-empty shell command/,
    );
    expect(() => validateConfig({ workers: [{ command: "x", lanes: 2 }] })).toThrow(
      /"workers\[0\]": unknown field "lanes"/,
    );
    expect(() => validateConfig({ workers: [{ command: "x", group: "a b" }] })).toThrow(
      /"workers\[0\]\.group" must be a short name/,
    );
    expect(validateConfig({ workers: [{ command: "x", scaleToZero: false }] }).workers![0]!.scaleToZero).toBe(false);
    expect(() => validateConfig({ workers: [{ command: "x", scaleToZero: "no" }] })).toThrow(
      /"workers\[0\]\.scaleToZero" must be true \(run it only while its workflows have runnable work, the default\) or false \(keep it running\)/,
    );
  });
});

describe.skipIf(!HAS_GO)(
  HAS_GO ? "sluice.json workers: a Go worker started by the server" : `sluice.json workers ${SKIP_REASON}`,
  () => {
    let bin: string;
    beforeAll(() => {
      bin = join(tempDir("sluice-go-cfg-"), "order-worker");
      mkdirSync(GO_ENV.GOCACHE!, { recursive: true });
      const build = spawnSync("go", ["build", "-o", bin, "./examples/order-worker"], {
        cwd: SDK,
        env: { ...process.env, ...GO_ENV },
        encoding: "utf8",
      });
      expect(build.status, build.stderr).toBe(0);
    }, 180_000);

    for (const mode of ["server", "dev"] as const) {
      it(`sluice ${mode}: starts the command${mode === "server" ? " with a worker token" : ""}, runs its workflow, drains it on SIGTERM`, async () => {
        const root = makeProject(
          {
            "sluice.json": JSON.stringify({ workers: [{ command: `ORDER_WORKER_NAME=cfg exec ${bin}`, group: "go" }] }),
          },
          "sluice-go-cfg-",
        );
        const args =
          mode === "server"
            ? ["server", "--port", "0", "--workers", "none"]
            : ["dev", ".", "--port", "0", "--no-watch"];
        const proc = spawnSluice(args, root);
        await proc.waitFor(/\[go\] .*order-worker cfg: serving fulfill-order/, 60_000);
        expect(proc.output()).toMatch(/worker command \[go\]: ORDER_WORKER_NAME=cfg exec .*order-worker \(pid \d+\)/);
        const enq = await cli(["enqueue", "flaky", "{}", "--json"], root);
        expect(enq.code, enq.err).toBe(0);
        const id = JSON.parse(enq.out).id as string;
        await eventually(async () => {
          const s = await cli(["show", id, "--json"], root);
          return s.code === 0 && JSON.parse(s.out).status === "succeeded";
        }, 30_000);
        if (mode === "server") expect((await cli(["token", "list"], root)).out).toMatch(/workers-\d+\s+worker/);
        proc.proc.kill("SIGTERM");
        expect(await proc.exited).toBe(0);
        expect(proc.output()).toMatch(/\[go\] .*order-worker: drained/);
        expect(proc.output()).toMatch(/\[go\] worker command exited \(code 0\)/);
        if (mode === "server") {
          // The token made for the workers was revoked when the server stopped.
          const tokens = await cli(["token", "list"], root);
          expect(tokens.code).toBe(0);
          expect(tokens.out).not.toMatch(/workers-\d+/);
        }
      }, 120_000);
    }

    it("sluice server: a worker SIGKILLed by its pid is restarted (the exit said), a run enqueued afterwards finishes, and a stop leaves no process", async () => {
      const root = makeProject(
        { "sluice.json": JSON.stringify({ workers: [{ command: `ORDER_WORKER_NAME=cfg ${bin}`, group: "go" }] }) },
        "sluice-go-cfg-",
      );
      const proc = spawnSluice(["server", "--port", "0", "--workers", "none"], root);
      await proc.waitFor(/\[go\] .*order-worker cfg: serving/, 60_000);
      // The command is exec'd: the pid printed is the Go worker's own.
      const pids = () =>
        [...proc.output().matchAll(/worker command \[go\]: ORDER_WORKER_NAME=cfg \S+ \(pid (\d+)\)/g)].map((m) =>
          Number(m[1]),
        );
      const [first] = pids();
      if (process.platform === "linux")
        expect(readFileSync(`/proc/${first}/cmdline`, "utf8")).toMatch(/^[^\0]*order-worker\0/);
      process.kill(first!, "SIGKILL");
      await proc.waitFor(/\[go\] worker command exited \(killed by SIGKILL\); restarting it in 1 s/, 10_000);
      await eventually(() => pids().length === 2, 10_000);
      await proc.waitFor(/order-worker cfg: serving[\s\S]*order-worker cfg: serving/, 30_000);
      const enq = await cli(["enqueue", "flaky", "{}", "--json"], root);
      expect(enq.code, enq.err).toBe(0);
      const id = JSON.parse(enq.out).id as string;
      await eventually(async () => {
        const s = await cli(["show", id, "--json"], root);
        return s.code === 0 && JSON.parse(s.out).status === "succeeded";
      }, 30_000);
      proc.proc.kill("SIGTERM");
      expect(await proc.exited).toBe(0);
      expect(proc.output()).toMatch(/\[go\] worker command exited \(code 0\)/);
      for (const pid of pids()) expect(processLeft(pid), `worker ${pid}`).toBe(false);
    }, 120_000);

    it("sluice dev: a Go worker SIGKILLed mid-run (by its pid) has its run claimed again by the restarted worker at once, not after its 30 s lease", async () => {
      const root = makeProject(
        { "sluice.json": JSON.stringify({ workers: [{ command: `ORDER_WORKER_NAME=cfg exec ${bin}`, group: "go" }] }) },
        "sluice-go-cfg-",
      );
      const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root);
      await dev.waitFor(/\[go\] .*order-worker cfg: serving/, 60_000);
      const pid = Number(/worker command \[go\]: ORDER_WORKER_NAME=cfg \S+ \S+ \(pid (\d+)\)/.exec(dev.output())![1]);
      const enq = await cli(["enqueue", "slow-step", JSON.stringify({ ms: 120_000 }), "--json"], root);
      expect(enq.code, enq.err).toBe(0);
      await dev.waitFor(/work started on cfg, attempt 1/, 30_000);
      const killedAt = Date.now();
      process.kill(pid, "SIGKILL");
      await dev.waitFor(/\[go\] worker command exited \(killed by SIGKILL\)/, 10_000);
      // The lease is 30 s: a run claimed again within 15 s was released when its worker died.
      await dev.waitFor(/work started on cfg, attempt 2/, 15_000);
      expect(Date.now() - killedAt).toBeLessThan(15_000);
      expect(dev.output()).toMatch(
        /\[go\] the exited worker's 1 claim\(s\) were released: 1 run\(s\) get another attempt now/,
      );
      dev.proc.kill("SIGTERM");
      expect(await dev.exited).toBe(0);
    }, 120_000);

    it("sluice server SIGKILLed: its Go worker exits by itself (its output pipe is gone), as docs/PROTOCOL.md says", async () => {
      const root = makeProject(
        { "sluice.json": JSON.stringify({ workers: [{ command: `ORDER_WORKER_NAME=cfg exec ${bin}`, group: "go" }] }) },
        "sluice-go-cfg-",
      );
      const proc = spawnSluice(["server", "--port", "0", "--workers", "none"], root);
      await proc.waitFor(/\[go\] .*order-worker cfg: serving/, 60_000);
      const pid = Number(/worker command \[go\]: ORDER_WORKER_NAME=cfg \S+ \S+ \(pid (\d+)\)/.exec(proc.output())![1]);
      expect(processLeft(pid)).toBe(true);
      proc.proc.kill("SIGKILL");
      await proc.exited;
      try {
        await eventually(() => !processLeft(pid), 10_000);
      } finally {
        if (processLeft(pid)) process.kill(pid, "SIGKILL");
      }
    }, 120_000);
  },
);

/** Whether a process (or its process group) is still there, zombies aside. */
function processLeft(pid: number): boolean {
  for (const target of [pid, -pid])
    try {
      process.kill(target, 0);
      if (target > 0 && /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))) continue;
      return true;
    } catch {
      // gone
    }
  return false;
}
