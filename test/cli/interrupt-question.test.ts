/**
 * Ctrl-C on a backfill followed from a real terminal asks whether to detach or cancel (issue:
 * "Ctrl-C asks to detach or cancel"). The CLI runs under `script`, which gives it a
 * pseudo-terminal: the test types Ctrl-C (`\x03`, which the terminal turns into SIGINT) and
 * then an answer, exactly as a person would. Without a terminal (every other test) it detaches
 * without asking.
 */
import { execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";
import { makeProject, REPO } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";

const PROJECT = {
  "f/daily/extract.ts": `// pipeline
// partitioned daily
export async function main(partition: string) {
  await new Promise((r) => setTimeout(r, 400));
  return partition;
}
`,
};

function hasScript(): boolean {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

it("on a terminal, Ctrl-C asks; answering c cancels the backfill gracefully", async () => {
  // util-linux's script(1) is part of Debian's base system; without it this test cannot type Ctrl-C.
  expect(hasScript(), "script(1) from util-linux is needed to give the CLI a terminal").toBe(true);
  const root = makeProject(PROJECT);
  const cmd = [process.execPath, join(REPO, "bin", "sluice.js")]
    .concat(["pipeline", "backfill", "f/daily", "--from-partition", "2026-05-01", "--to-partition", "2026-05-08"])
    .map((a) => `'${a}'`)
    .join(" ");
  // script -q: no banners; -f: flush; -e: its exit code is the command's; -c: the command; /dev/null: no typescript file.
  const term = spawn("script", ["-qfec", cmd, "/dev/null"], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  term.stdout.on("data", (d) => (out += d));
  term.stderr.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => term.on("exit", (code) => resolve(code)));
  try {
    await eventually(() => /1\/8 2026-05-01 ✓/.test(out), 60_000);
    term.stdin.write("\x03");
    await eventually(() => /detach \(the backfill goes on in the store\) or cancel it\?/.test(out), 15_000);
    term.stdin.write("c\n");
    expect(await exited).toBe(130);
  } finally {
    term.kill("SIGKILL");
  }
  const id = /backfill (\S+) of/.exec(out)?.[1];
  expect(out).toMatch(new RegExp(`cancelled backfill ${id}`));
  const status = spawnSluice(["pipeline", "backfill", "status", id!, "--json"], root);
  // A backfill that did not succeed: status exits 1 and prints it.
  expect(await status.exited, `${status.output()}\n--- terminal:\n${out}`).toBe(1);
  const st = JSON.parse(status.stdout()) as { status: string; counts: { succeeded: number } };
  expect(JSON.stringify(st)).toMatch(/cancelled by Ctrl-C \(answered cancel\)/);
  expect(st.status).toBe("cancelled");
  expect(st.counts.succeeded).toBeLessThan(8);
}, 120_000);
