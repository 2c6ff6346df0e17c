/**
 * The real binary: lines a Python script prints on the worker protocol's Python worker
 * (`wmill._wac_worker`, started by `sluice dev`) reach `sluice logs --run` while the run runs,
 * each with the time it was printed, an error's run's too (docs/PROTOCOL.md, "Logs").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finished, type SluiceProcess, spawnSluice, startDev, stopDev } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";

const SCRIPT = `import time

def main(ms: int, fail: bool = False):
    print("first")
    time.sleep(ms / 1000)
    print("second")
    if fail:
        raise ValueError("failed on purpose")
    return "done"
`;

let root: string;
let dev: SluiceProcess;
beforeAll(async () => {
  ({ root, dev } = await startDev({ "f/p/talk.py": SCRIPT }));
  await dev.waitFor(/claiming 1 workflow\(s\) from/, 30_000);
}, 60_000);
afterAll(() => stopDev(dev));

async function cli(args: string[]): Promise<{ code: number | string; out: string; err: string }> {
  return finished(spawnSluice(args, root, { SLUICE_PYTHON_HOST: "" }));
}

async function status(id: string): Promise<string> {
  const r = await cli(["show", id, "--json"]);
  expect(r.code, r.err).toBe(0);
  return (JSON.parse(r.out) as { status: string }).status;
}

describe("the Python worker's log lines", () => {
  it("reach `sluice logs --run` while the run runs, each with the time it was printed, an error's too", async () => {
    for (const fail of [false, true]) {
      const enq = await cli(["enqueue", "f/p/talk", JSON.stringify({ ms: 3_000, fail }), "--json"]);
      expect(enq.code, enq.err).toBe(0);
      const id = JSON.parse(enq.out).id as string;
      const logs = async () => {
        const r = await cli(["logs", "--run", id, "--json"]);
        expect(r.code, r.err).toBe(0);
        return r.out
          .split("\n")
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l) as { msg: string; ts: string });
      };
      // Mid-run: "first" is there, "second" not yet, and the run still runs.
      const mid = await eventually(async () => {
        const lines = await logs();
        return lines.some((l) => l.msg === "first") ? lines : null;
      }, 10_000).catch(() => null);
      expect(
        mid?.map((l) => l.msg),
        `no line before the run ended: ${dev.output()}`,
      ).toEqual(["first"]);
      expect(await status(id)).toBe("running");
      await eventually(async () => (await status(id)) === (fail ? "failed" : "succeeded"), 20_000);
      const lines = (await logs()).filter((l) => l.msg === "first" || l.msg === "second");
      expect(lines.map((l) => l.msg)).toEqual(["first", "second"]);
      // Each line has the time it was printed, not the time it reached the server.
      const gap = Date.parse(lines[1]!.ts) - Date.parse(lines[0]!.ts);
      expect(gap, JSON.stringify(lines)).toBeGreaterThanOrEqual(2_500);
    }
  }, 90_000);
});
