/**
 * A reader that stops early (`sluice show <run> --json | head`) closes the pipe while the
 * CLI still writes: the real binary must stop quietly (exit 0), not crash with EPIPE. Output
 * that cannot be written for another reason (`sluice logs > /dev/full`: no space left) is one
 * line on stderr and exit 1, not a stack trace.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { makeProject, REPO } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";

const FILES = {
  "workflows/echo.ts": `
    import { defineWorkflow } from "sluice";
    export default defineWorkflow<{ text: string }>("echo", { handler: async (p) => p.text.length });`,
};

it("stops quietly when the reader of its output goes away", async () => {
  const root = makeProject(FILES);
  const payload = join(root, "big.json");
  // Well over a pipe's buffer (64 KiB), so the CLI is still writing when the reader closes.
  writeFileSync(payload, JSON.stringify({ text: "x".repeat(400_000) }));
  const enq = spawnSluice(["enqueue", "echo", "--payload-file", payload, "--id", "big"], root);
  expect(await enq.exited).toBe(0);

  const proc = spawn(process.execPath, [join(REPO, "bin", "sluice.js"), "show", "big", "--json"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  let first = "";
  proc.stdout.once("data", (d) => {
    first = String(d);
    proc.stdout.destroy(); // the reader stops after its first chunk, like `| head -c 100`
  });
  const code = await new Promise<number | string>((resolve) => proc.on("exit", (c, s) => resolve(c ?? s ?? -1)));
  expect(first).toContain('"id"');
  expect(stderr).not.toMatch(/EPIPE|Unhandled/);
  expect(code).toBe(0);
});

it.skipIf(!existsSync("/dev/full"))("says in one line that its output could not be written, and exits 1", async () => {
  const root = makeProject(FILES);
  const payload = join(root, "big.json");
  writeFileSync(payload, JSON.stringify({ text: "y".repeat(200_000) }));
  const enq = spawnSluice(["enqueue", "echo", "--payload-file", payload, "--id", "big"], root);
  expect(await enq.exited).toBe(0);
  const full = openSync("/dev/full", "w");
  const proc = spawn(process.execPath, [join(REPO, "bin", "sluice.js"), "show", "big", "--json"], {
    cwd: root,
    stdio: ["ignore", full, "pipe"],
  });
  closeSync(full);
  let stderr = "";
  proc.stderr!.on("data", (d) => (stderr += d));
  const code = await new Promise<number | string>((resolve) => proc.on("exit", (c, s) => resolve(c ?? s ?? -1)));
  expect(code).toBe(1);
  expect(stderr).toMatch(/^sluice: could not write its output \(ENOSPC: no space left on device, write\): .*\n$/);
  expect(stderr.trim().split("\n")).toHaveLength(1);
});
