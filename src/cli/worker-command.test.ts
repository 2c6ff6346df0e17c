/**
 * A supervised worker command with real processes and real signals: a worker SIGKILLed by
 * its pid is started again (and the exit said), a stop during the restart's wait starts
 * nothing, and a stop leaves no process of the command's group behind. Each process has a
 * worker id of its own, whose claims are released once it has exited, before a restart.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { WorkerCommand } from "./worker-command.js";

const running: WorkerCommand[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop(1_000)));
});

function command(
  line: string,
  onExit?: (workerId: string) => Promise<void>,
): { cmd: WorkerCommand; log: () => string } {
  const out: string[] = [];
  const cmd = new WorkerCommand({
    label: "t",
    command: line,
    cwd: process.cwd(),
    env: process.env,
    write: (t) => out.push(t),
    onExit,
  });
  running.push(cmd);
  return { cmd, log: () => out.join("") };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function groupExists(pgid: number): boolean {
  return alive(-pgid);
}

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("WorkerCommand", () => {
  it("restarts a command whose process is SIGKILLed, says why, and prints the worker's own pid", async () => {
    const { cmd, log } = command("sleep 30");
    cmd.start();
    const first = cmd.pid!;
    expect(log()).toContain(`worker command [t]: sleep 30 (pid ${first})\n`);
    // exec: the pid printed is sleep's, not a shell's.
    expect(alive(first)).toBe(true);
    process.kill(first, "SIGKILL");
    await until(() => cmd.starts === 2 && cmd.pid !== null);
    expect(log()).toContain("[t] worker command exited (killed by SIGKILL); restarting it in 1 s\n");
    expect(cmd.pid).not.toBe(first);
    await cmd.stop(1_000);
    expect(log()).toMatch(/\[t\] worker command exited \(killed by SIGTERM\)\n$/);
  });

  // Reads the shell's children from /proc (Linux).
  it.skipIf(process.platform !== "linux")(
    "says how to signal the group of a line it cannot exec, and kills what is left of it before a restart",
    async () => {
      const { cmd, log } = command("sleep 30 & sleep 30; wait");
      cmd.start();
      const shell = cmd.pid!;
      expect(log()).toContain(
        `(pid ${shell} is the sh -c running it; kill -- -${shell} signals its whole process group)`,
      );
      await until(() => readFileSync(`/proc/${shell}/task/${shell}/children`, "utf8").trim().split(" ").length === 2);
      process.kill(shell, "SIGKILL");
      await until(() => log().includes("restarting"));
      expect(log()).toContain(
        "(killed by SIGKILL); stopping the rest of its process group (SIGTERM: a worker drains; SIGKILL after 10 s); restarting it in 1 s",
      );
      await until(() => !groupExists(shell));
    },
  );

  it("stops what its exited launcher left (go run's worker when go run was signalled) with SIGTERM first: it drains", async () => {
    // The subshell stands in for the Go program under `go run`: on SIGTERM it drains and exits 0.
    const { cmd, log } = command(
      "(trap 'echo drained; exit 0' TERM; echo serving; while :; do sleep 0.05; done) & sleep 30; wait",
    );
    cmd.start();
    const launcher = cmd.pid!;
    await until(() => log().includes("[t] serving"));
    process.kill(launcher, "SIGKILL");
    await until(() => log().includes("[t] drained"));
    await until(() => cmd.starts === 2);
    expect(log()).toContain("stopping the rest of its process group (SIGTERM: a worker drains; SIGKILL after 10 s)");
    expect(groupExists(launcher)).toBe(false);
  });

  it("gives each process a SLUICE_WORKER_ID of its own and releases it once the process is gone, before the restart", async () => {
    const released: Array<{ id: string; starts: number; groupLeft: boolean }> = [];
    let pgid = 0;
    const { cmd, log } = command("echo id=$SLUICE_WORKER_ID; sleep 30 & wait", async (id) => {
      released.push({ id, starts: cmd.starts, groupLeft: groupExists(pgid) });
      await new Promise((r) => setTimeout(r, 200));
    });
    cmd.start();
    pgid = cmd.pid!;
    await until(() => /\[t\] id=\S+/.test(log()));
    const first = /\[t\] id=(\S+)/.exec(log())![1]!;
    // The shell is killed, its `sleep` is left in the group: killed, gone, then released.
    process.kill(pgid, "SIGKILL");
    await until(() => cmd.starts === 2 && /\[t\] id=[\s\S]*\[t\] id=/.test(log()));
    expect(released).toEqual([{ id: first, starts: 1, groupLeft: false }]);
    const second = [...log().matchAll(/\[t\] id=(\S+)/g)][1]![1]!;
    expect(second).not.toBe(first);
    await cmd.stop(1_000);
    // A stop releases the last process's id too, before it returns.
    expect(released.map((r) => r.id)).toEqual([first, second]);
  });

  it("a stop during the wait before a restart starts nothing", async () => {
    const { cmd, log } = command("sleep 30");
    cmd.start();
    process.kill(cmd.pid!, "SIGKILL");
    await until(() => log().includes("restarting"));
    await cmd.stop(1_000);
    await new Promise((r) => setTimeout(r, 1_300));
    expect(cmd.starts).toBe(1);
    expect(cmd.pid).toBeNull();
  });

  it("a stop sends SIGTERM to the whole group, then SIGKILL to what ignores it", async () => {
    const { cmd, log } = command("trap '' TERM; sleep 30 & sleep 30 & wait");
    cmd.start();
    const group = cmd.pid!;
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await cmd.stop(500);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(log()).toMatch(/worker command exited \(killed by SIGKILL\)\n$/);
    // Its orphans are gone once init has reaped them.
    await until(() => !groupExists(group));
  });
});
