/**
 * Payloads that are not a JSON object of named arguments, enqueued as users do (`sluice enqueue`
 * and `POST /api/runs` against a `sluice dev` process): checked against `main`'s parameters at
 * enqueue like an object is. An array gives the arguments by position and any other value is the
 * first argument alone (as the run maps them), checked by count; null gives none. Tako-style
 * workflows take any JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { type SluiceProcess, spawnSluice } from "../helpers/processes.js";

const FILES = {
  "f/qa/add.ts": `
    import { workflow } from "windmill-client";
    export const main = workflow(async (x: number, y: number) => x + y);`,
  "f/qa/greet.ts": `export async function main(name = "world") { return "hello " + name; }`,
  "f/qa/pyadd.py": `def main(x: int, y: int):\n    return x + y\n`,
  "workflows/any.ts": `
    import { defineWorkflow } from "sluice";
    export default defineWorkflow<unknown>("any", { handler: async (p) => ({ got: p ?? null }) });`,
};

async function done(p: SluiceProcess) {
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

describe("enqueue of non-object payloads, against sluice dev", { timeout: 120_000 }, () => {
  let root: string;
  let dev: SluiceProcess;
  let url: string;
  const sluice = (...args: string[]) => done(spawnSluice(args, root));
  const post = async (body: unknown) => {
    const res = await fetch(`${url}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    root = makeProject(FILES);
    dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root, {}, { shared: true });
    await dev.waitFor(/UI: (http:\/\/127\.0\.0\.1:\d+)/, 40_000);
    url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
    await dev.waitFor(/f\/qa\/pyadd/, 40_000);
  });
  afterAll(async () => {
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  });

  it("the CLI refuses those that miss a parameter or give too many (exit 1, nothing enqueued)", async () => {
    const takes = "its parameters are x, y";
    const refused: Array<[string, string]> = [
      ["[1]", `missing parameter "y" for f/qa/add: ${takes} (required: x, y)`],
      ["[]", `missing parameters "x", "y" for f/qa/add: ${takes} (required: x, y)`],
      ["null", `missing parameters "x", "y" for f/qa/add: ${takes} (required: x, y)`],
      ["[1, 2, 3]", `too many arguments for f/qa/add: 3 given by position, ${takes}`],
      ['"str"', `missing parameter "y" for f/qa/add: ${takes} (required: x, y)`],
      ["5", `missing parameter "y" for f/qa/add: ${takes} (required: x, y)`],
    ];
    for (const [payload, message] of refused) {
      expect(await sluice("enqueue", "f/qa/add", payload, "--wait"), payload).toEqual({
        code: 1,
        out: "",
        err: `sluice: ${message}\n`,
      });
    }
    const py = await sluice("enqueue", "f/qa/pyadd", "[1, 2, 3]");
    expect(py.code).toBe(1);
    expect(py.err).toBe("sluice: too many arguments for f/qa/pyadd: 3 given by position, its parameters are x, y\n");
    expect(JSON.parse((await sluice("runs", "--json")).out)).toEqual([]);
  });

  it("POST /api/runs refuses them with 400 INVALID_ARGUMENTS; positional arrays, null and Tako payloads still run", async () => {
    for (const payload of [5, null, "str", [1], true]) {
      const r = await post({ workflow: "f/qa/add", payload });
      expect(r.status, JSON.stringify(payload)).toBe(400);
      expect(r.body.error.code).toBe("INVALID_ARGUMENTS");
    }
    expect((await post({ workflow: "f/qa/pyadd", payload: [1, 2, 3] })).body.error).toEqual({
      code: "INVALID_ARGUMENTS",
      message: "too many arguments for f/qa/pyadd: 3 given by position, its parameters are x, y",
    });
    const ok: Array<[string, string, unknown]> = [
      ["f/qa/add", "[2, 3]", 5],
      ["f/qa/pyadd", "[2, 3]", 5],
      ["f/qa/greet", "null", "hello world"],
      ["f/qa/greet", '["ann"]', "hello ann"],
      ["f/qa/greet", '"bo"', "hello bo"],
      ["any", "5", { got: 5 }],
      ["any", '"str"', { got: "str" }],
      ["any", "[1]", { got: [1] }],
      ["any", "null", { got: null }],
    ];
    for (const [workflow, payload, result] of ok) {
      const r = await sluice("enqueue", workflow, payload, "--wait", "--timeout", "30s");
      expect(r.code, `${workflow} ${payload}: ${r.err}`).toBe(0);
      expect(JSON.parse(r.out)).toEqual(result);
    }
  });
});
