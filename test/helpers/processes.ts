import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, expect } from "vitest";
import { makeProject, REPO } from "./project.js";
import { eventually } from "./tmp.js";

const BIN = join(REPO, "bin", "sluice.js");
const live = new Set<ChildProcess>();
/** Processes shared by the tests of a file (`shared: true`): killed after the file's last test. */
const shared = new Set<ChildProcess>();

function killAll(set: Set<ChildProcess>): void {
  for (const p of set) {
    if (p.exitCode === null && p.signalCode === null) {
      p.kill("SIGCONT");
      p.kill("SIGKILL");
    }
  }
  set.clear();
}

// A test must not leak processes: kill what it started (by pid) and fail loudly.
afterEach(() => killAll(live));
afterAll(() => killAll(shared));

/** A running `sluice` child process with its combined output. */
export interface SluiceProcess {
  proc: ChildProcess;
  pid: number;
  /** Standard output and error, interleaved as they arrived. */
  output(): string;
  /** Standard output alone. */
  stdout(): string;
  /** Standard error alone. */
  stderr(): string;
  /** Resolves once the output matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
}

/** Extra settings of {@link spawnSluice}. */
export interface SpawnOptions {
  /** Written to the child's standard input, which is then closed (default: no standard input). */
  stdin?: string;
  /** Keep the process across the file's tests (a `sluice dev` they share); killed after the last one. */
  shared?: boolean;
}

/** Spawns the built CLI (`npm run build` first; `npm test` does it). A variable set to undefined in `env` is unset. */
export function spawnSluice(
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
  options: SpawnOptions = {},
): SluiceProcess {
  if (!existsSync(join(REPO, "dist", "cli", "main.js")))
    throw new Error("dist/ is missing: run `npm run build` (npm test does it)");
  const stdin = options.stdin === undefined ? "ignore" : "pipe";
  const proc = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: [stdin, "pipe", "pipe"],
  });
  (options.shared ? shared : live).add(proc);
  if (options.stdin !== undefined) proc.stdin!.end(options.stdin);
  let out = "";
  let stdout = "";
  let stderr = "";
  proc.stdout!.on("data", (d) => ((out += d), (stdout += d)));
  proc.stderr!.on("data", (d) => ((out += d), (stderr += d)));
  const exited = new Promise<number | string>((resolve) =>
    proc.on("exit", (code, signal) => resolve(code ?? signal ?? -1)),
  );
  return {
    proc,
    pid: proc.pid!,
    output: () => out,
    stdout: () => stdout,
    stderr: () => stderr,
    waitFor: async (pattern, timeoutMs = 15_000) => {
      await eventually(() => pattern.test(out), timeoutMs).catch(() => {
        throw new Error(`output did not match ${pattern} within ${timeoutMs} ms; output so far:\n${out}`);
      });
    },
    exited,
  };
}

/**
 * A `sluice dev` on a new project of `files`, kept for the file's tests (`shared`), once it serves;
 * `env` is added to its environment. Pair it with {@link stopDev} in `afterAll`.
 */
export async function startDev(
  files: Record<string, string>,
  env: Record<string, string | undefined> = {},
): Promise<{ root: string; dev: SluiceProcess }> {
  const root = makeProject(files);
  const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root, env, { shared: true });
  await dev.waitFor(/UI: http/, 30_000);
  return { root, dev };
}

/** Stops a {@link startDev} process with SIGTERM; it must exit 0. */
export async function stopDev(dev: SluiceProcess): Promise<void> {
  dev.proc.kill("SIGTERM");
  expect(await dev.exited).toBe(0);
}

/** A finished process's exit code and output. */
export async function finished(p: SluiceProcess): Promise<{ code: number | string; out: string; err: string }> {
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}
