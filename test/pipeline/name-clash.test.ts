/**
 * Two pipeline scripts of one folder that would both run under one name (`x.ts` and `x.py`):
 * `sluice dev` lists both as NOT LOADED, and neither runs: an enqueue of the name is refused
 * with a line naming both files and what to do (rename one), through the CLI and the API,
 * and no run is created. The same for two plain scripts (`y.ts`, `y.py`) outside a pipeline,
 * whose clash `sluice dev` and `sluice enqueue` tell once (not once per file).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finished, type SluiceProcess, spawnSluice, startDev, stopDev } from "../helpers/processes.js";

const TS = `// pipeline
export async function main() {
  console.log("ts ran");
  return "ts";
}
`;
const PY = `# pipeline
def main():
    print("py ran")
    return "py"
`;

let root: string;
let dev: SluiceProcess;
let url: string;
beforeAll(async () => {
  ({ root, dev } = await startDev({
    "f/pl/x.ts": TS,
    "f/pl/x.py": PY,
    "f/pl/other.ts": TS.replace("ts ran", "other ran"),
    "f/p/y.ts": TS.replace("// pipeline\n", ""),
    "f/p/y.py": PY.replace("# pipeline\n", ""),
  }));
  url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
}, 60_000);
afterAll(() => stopDev(dev));

const cli = (args: string[]) => finished(spawnSluice(args, root));

describe("x.ts and x.py in one pipeline folder", () => {
  it("are listed as NOT LOADED, and an enqueue of their name is refused naming both files; nothing runs", async () => {
    expect(dev.output()).toMatch(
      /NOT LOADED: f\/pl\/x\.py and f\/pl\/x\.ts would both run as f\/pl\/x; rename one of them/,
    );
    const enq = await cli(["enqueue", "f/pl/x", "{}", "--wait", "--json"]);
    expect(enq.code, enq.out + enq.err).not.toBe(0);
    // Its last line is the error: both files, and what to do.
    expect(enq.err.trim().split("\n").at(-1)).toMatch(
      /^sluice: .*"f\/pl\/x" is defined twice \(in f\/pl\/x\.ts and in f\/pl\/x\.py\).*rename one of them$/,
    );
    const api = await fetch(`${url}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ workflow: "f/pl/x", payload: {} }),
    });
    expect(api.status).toBe(409);
    const body = (await api.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("PIPELINE_SCRIPT_NOT_LOADED");
    expect(body.error.message).toMatch(/f\/pl\/x\.py and f\/pl\/x\.ts .*rename one of them/);
    // Neither file ran; the listing still says why.
    const runs = await cli(["runs", "--json"]);
    expect(runs.code, runs.err).toBe(0);
    expect(runs.out).not.toMatch(/"f\/pl\/x"/);
    expect(dev.output()).not.toMatch(/ts ran|py ran/);
    const status = await cli(["pipeline", "status"]);
    expect(status.out).toMatch(/NOT LOADED: f\/pl\/x\.py and f\/pl\/x\.ts would both run as f\/pl\/x/);
    // The rest of the folder runs.
    const other = await cli(["enqueue", "f/pl/other", "{}", "--wait", "--json"]);
    expect(other.code, other.err).toBe(0);
    expect(JSON.parse(other.out)).toMatchObject({ status: "succeeded", result: "ts" });
  }, 60_000);

  it("two plain scripts y.ts and y.py: neither runs, an enqueue says both files and to rename one", async () => {
    // Told once, though each of the two loaders refuses its own file.
    const clash = /workflow name "f\/p\/y" is defined twice .*rename one of them/g;
    expect(dev.output().match(clash), dev.output()).toHaveLength(1);
    const enq = await cli(["enqueue", "f/p/y", "{}", "--wait", "--json"]);
    expect(enq.code, enq.out + enq.err).toBe(1);
    // The enqueue loads the project to find the name: its warning once, then the error.
    expect(enq.err.match(clash), enq.err).toHaveLength(2);
    expect(enq.err.match(/^warning: .*"f\/p\/y" is defined twice/gm), enq.err).toHaveLength(1);
    expect(enq.err.trim().split("\n").at(-1)).toMatch(
      /^sluice: workflow name "f\/p\/y" is defined twice \(in f\/p\/y\.\w+ and in f\/p\/y\.\w+\).*rename one of them$/,
    );
    const api = await fetch(`${url}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ workflow: "f/p/y", payload: {} }),
    });
    expect(api.status).toBe(409);
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe("DUPLICATE_WORKFLOW");
    const runs = await cli(["runs", "--json"]);
    expect(runs.out).not.toMatch(/"f\/p\/y"/);
    expect(dev.output()).not.toMatch(/ts ran|py ran/);
  }, 60_000);
});
