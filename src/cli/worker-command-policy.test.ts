import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  commandHealth,
  describeExit,
  execCommandLine,
  nextRestartDelay,
  RESTART_FIRST_MS,
  RESTART_MAX_MS,
  RESTART_STABLE_MS,
} from "./worker-command-policy.js";

describe("nextRestartDelay", () => {
  it("starts at 1 s, doubles while the command keeps dying, stops at 30 s, and resets once it stayed up", () => {
    const delays: number[] = [];
    let d: number | null = null;
    for (let i = 0; i < 8; i++) delays.push((d = nextRestartDelay(d, 500)));
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    expect(RESTART_FIRST_MS).toBe(1_000);
    expect(RESTART_MAX_MS).toBe(30_000);
    expect(nextRestartDelay(30_000, RESTART_STABLE_MS)).toBe(1_000);
    expect(nextRestartDelay(30_000, RESTART_STABLE_MS - 1)).toBe(30_000);
  });
});

describe("commandHealth", () => {
  const crash = { cause: "code 2", upMs: 400, lastLine: "main.go:3:1: undefined: x", streak: 2 };
  it("is unhealthy after quick exits in a row until a later process stays up as long as resets the restart delay", () => {
    expect(commandHealth("go", "go run .", null, 10)).toEqual({
      label: "go",
      ok: true,
      detail: "worker command [go] (go run .) running",
    });
    const pending = commandHealth("go", "go run .", crash, null);
    expect(pending.ok).toBe(false);
    expect(pending.detail).toBe(
      'worker command [go] (go run .) keeps exiting: 2 times in a row, the last after 0.4 s (code 2, last output "main.go:3:1: undefined: x"); a restart is pending, healthy again once a process stays up 60 s (see the server\'s log)',
    );
    expect(commandHealth("go", "go run .", crash, RESTART_STABLE_MS - 1).ok).toBe(false);
    expect(commandHealth("go", "go run .", crash, RESTART_STABLE_MS).ok).toBe(true);
    // One crash is restarted, not reported.
    expect(commandHealth("go", "go run .", { ...crash, streak: 1 }, null).ok).toBe(true);
    expect(commandHealth("go", "go run .", { ...crash, lastLine: null }, 5_000).detail).toContain(
      "(code 2); restarted 5 s ago",
    );
  });
});

describe("describeExit", () => {
  it("names the signal, and what a shell's exit code usually means", () => {
    expect(describeExit(0, null)).toBe("code 0");
    expect(describeExit(null, "SIGKILL")).toBe("killed by SIGKILL");
    expect(describeExit(137, null)).toBe("code 137: its process was killed by SIGKILL");
    expect(describeExit(143, null)).toBe("code 143: its process was killed by SIGTERM");
    expect(describeExit(127, null)).toBe("code 127: command not found");
    expect(describeExit(2, null)).toBe("code 2");
  });
});

describe("execCommandLine", () => {
  it("puts exec before the program of one simple command, after its assignments", () => {
    expect(execCommandLine("./worker --slots 4")).toBe("exec ./worker --slots 4");
    expect(execCommandLine("go run ./cmd/worker")).toBe("exec go run ./cmd/worker");
    expect(execCommandLine("A=1 B=x/y ./worker")).toBe("A=1 B=x/y exec ./worker");
    expect(execCommandLine("python3 worker.py '$HOME'")).toBe("exec python3 worker.py '$HOME'");
    expect(execCommandLine("A=1 exec ./worker")).toBe("A=1 exec ./worker");
  });

  it("leaves lists, pipes, subshells, redirections, built-ins and quoted assignments alone", () => {
    for (const line of [
      "cd w && ./worker",
      "./worker | tee log",
      "./worker; echo done",
      "./worker &",
      "(./worker)",
      "./worker > out.log",
      "./worker $(cat args)",
      "./worker `cat args`",
      "if true; then ./worker; fi",
      "cd w",
      "export A=1",
      "A='x y' ./worker",
      'A="x y" ./worker',
      "exec",
      "A=1",
      "",
      "./worker # comment",
      "./worker\n./other",
    ])
      expect(execCommandLine(line), line).toBeNull();
  });

  it("runs the same program as the line without exec (dash and bash)", () => {
    for (const shell of ["sh", "bash"]) {
      const out = spawnSync(shell, ["-c", execCommandLine("A=1 B=2 env")!], { encoding: "utf8" });
      expect(out.status, shell).toBe(0);
      expect(out.stdout).toMatch(/^A=1$/m);
      expect(out.stdout).toMatch(/^B=2$/m);
    }
  });
});
