import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach } from "vitest";
import { REPO } from "./project.js";
import { eventually } from "./tmp.js";

const BIN = join(REPO, "bin", "sluice.js");
const live = new Set<ChildProcess>();

afterEach(() => {
  // A test must not leak processes: kill what it started (by pid) and fail loudly.
  for (const p of live) {
    if (p.exitCode === null && p.signalCode === null) {
      p.kill("SIGCONT");
      p.kill("SIGKILL");
    }
  }
  live.clear();
});

/** A running `sluice` child process with its combined output. */
export interface SluiceProcess {
  proc: ChildProcess;
  pid: number;
  output(): string;
  /** Resolves once the output matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
}

/** Spawns the built CLI (`npm run build` first; `npm test` does it). */
export function spawnSluice(args: string[], cwd: string, env: Record<string, string> = {}): SluiceProcess {
  if (!existsSync(join(REPO, "dist", "cli", "main.js"))) throw new Error("dist/ is missing: run `npm run build` (npm test does it)");
  const proc = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  live.add(proc);
  let out = "";
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | string>((resolve) => proc.on("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  return {
    proc,
    pid: proc.pid!,
    output: () => out,
    waitFor: async (pattern, timeoutMs = 15_000) => {
      await eventually(() => pattern.test(out), timeoutMs).catch(() => {
        throw new Error(`output did not match ${pattern} within ${timeoutMs} ms; output so far:\n${out}`);
      });
    },
    exited,
  };
}
