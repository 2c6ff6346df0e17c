/**
 * A claim ended before its lease ran out because its holder is known gone says so, with real
 * processes: a `sluice.json` Python worker command (`wmill.worker`) SIGKILLed mid-attempt under
 * `sluice dev` has its claims released (`engine/external-leases.ts`), and the runs read
 * `LEASE_RELEASED` ("its worker process exited") in `sluice show --json` and dev's log, not the
 * expired-lease error ("stopped heartbeating … its lease expired") they used to read. The retry
 * semantics are an expiry's: another attempt while attempts remain, `failed` on the last.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";

/** Each run hangs on its first claim (its marker file absent), and returns on the next one. */
const PY_WORKER = `import os, time
from wmill.worker import register_workflow, run_worker


def hang(ctx, p):
    if os.path.exists(p["marker"]):
        return "attempt %d" % ctx.attempt
    open(p["marker"], "w").write("started")
    time.sleep(300)
    return "never"


register_workflow("py-hang", hang)
print("py worker: ready", flush=True)
run_worker()
`;

/** Runs the CLI against the project (a separate process); its exit code and standard output. */
async function cli(args: string[], root: string): Promise<{ code: number | string; out: string; err: string }> {
  const p = spawnSluice(args, root);
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

describe("claims released when their worker process exits", () => {
  it("sluice dev: a Python worker command SIGKILLed mid-attempt: its runs read LEASE_RELEASED (worker exited), retried or failed as an expiry would be", async () => {
    const root = makeProject(
      {
        "worker.py": PY_WORKER,
        "sluice.json": JSON.stringify({ workers: [{ command: "exec python3 worker.py", group: "py" }] }),
      },
      "sluice-released-",
    );
    const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root);
    await dev.waitFor(/\[py\] .*py worker: ready/, 60_000);
    const pid = Number(/worker command \[py\]: exec python3 worker\.py \(pid (\d+)\)/.exec(dev.output())![1]);
    expect(pid).toBeGreaterThan(0);

    // One run on its only attempt, one with an attempt left. The worker registers its workflow
    // once it runs: enqueue until it is known.
    const marker = (id: string) => join(root, `${id}.marker`);
    for (const [id, retries] of [
      ["rel-last", "0"],
      ["rel-again", "1"],
    ] as const)
      await eventually(
        async () =>
          (
            await cli(
              ["enqueue", "py-hang", JSON.stringify({ marker: marker(id) }), "--id", id, "--retries", retries],
              root,
            )
          ).code === 0,
        30_000,
      );
    await eventually(() => existsSync(marker("rel-last")) && existsSync(marker("rel-again")), 30_000);

    const killedAt = Date.now();
    process.kill(pid, "SIGKILL");
    await dev.waitFor(
      /\[py\] the exited worker's 2 claim\(s\) were released: 1 run\(s\) get another attempt now, 1 failed \(it was their last attempt\)/,
      15_000,
    );
    const shown = await cli(["show", "rel-last", "--json"], root);
    expect(shown.code, shown.err).toBe(0);
    const last = JSON.parse(shown.out) as { status: string; attempt: number; error: Record<string, unknown> };
    expect(last).toMatchObject({ status: "failed", attempt: 1 });
    expect(last.error).toEqual({
      name: "LeaseReleasedError",
      code: "LEASE_RELEASED",
      message:
        "attempt 1 was ended when its worker process exited (its claim was released, not left to expire); that was the last of 1 attempts",
      data: { reason: "worker-exited" },
    });
    // dev's log says what happened to each run: released, not expired.
    await dev.waitFor(
      /✗ py-hang rel-last failed in \S+: attempt 1 was ended when its worker process exited \(its claim was released, not left to expire\); that was the last of 1 attempts\n/,
      10_000,
    );
    await dev.waitFor(
      /↻ py-hang rel-again attempt 1 failed \(attempt 1 was ended when its worker process exited \(its claim was released, not left to expire\)\); retry 2\/2/,
      10_000,
    );
    expect(dev.output()).not.toMatch(/stopped heartbeating|lease expired/);

    // The restarted worker runs the next attempt, well before the 30 s lease would have expired.
    await eventually(async () => {
      const s = await cli(["show", "rel-again", "--json"], root);
      return s.code === 0 && (JSON.parse(s.out) as { status: string }).status === "succeeded";
    }, 30_000);
    expect(Date.now() - killedAt).toBeLessThan(25_000);
    const again = JSON.parse((await cli(["show", "rel-again", "--json"], root)).out) as {
      result: unknown;
      attempt: number;
    };
    expect(again).toMatchObject({ result: "attempt 2", attempt: 2 });

    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 120_000);
});
