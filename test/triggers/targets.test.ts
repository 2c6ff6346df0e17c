/**
 * A trigger row can target any runnable, not only a `defineWorkflow` or a pipeline step: here
 * `sluice.json` upload rows target a Windmill-style script (`export async function main`) and a
 * workflow as code (`main = workflow(...)`), each with an `args` mapping from the message onto the
 * runnable's parameters, on a real `sluice dev`.
 */
import { describe, expect, it } from "vitest";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";
import { runsOf } from "./project.js";

const SCRIPT = `export async function main(s3: string, size: number) {
  return { s3, size };
}
`;
const FLOW = `import { step, workflow } from "windmill-client";

export const main = workflow(async (path: string) => {
  const name = await step("name", () => path.split("/").pop());
  return { path, name };
});
`;

describe("trigger targets: scripts and workflows as code", () => {
  it("an upload runs a script and a workflow as code, its message mapped onto their parameters", async () => {
    const root = makeProject(
      {
        "sluice.json": JSON.stringify({
          triggers: [
            {
              name: "to-script",
              kind: "data_upload",
              target: "f/ops/receive",
              args: { s3: "$.body.s3", size: "$.body.size" },
            },
            { name: "to-flow", kind: "data_upload", target: "f/ops/flow", args: { path: "$.body.s3" } },
          ],
        }),
        "f/ops/receive.ts": SCRIPT,
        "f/ops/flow.ts": FLOW,
      },
      "sluice-trigger-targets-",
    );
    const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root);
    await dev.waitFor(/UI: (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
    const url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
    const upload = async (trigger: string) => {
      const res = await fetch(`${url}/api/triggers/${trigger}/upload?name=a.csv`, {
        method: "POST",
        headers: { "content-type": "text/csv" },
        body: "x\n1\n",
      });
      expect(res.status, await res.clone().text()).toBe(201);
      return (await res.json()) as { s3: string; run: string };
    };
    const done = (workflow: string) =>
      eventually(async () => {
        const r = (await runsOf(root, workflow))[0];
        return r && r.status !== "pending" && r.status !== "running" && r.status !== "waiting" ? r : null;
      }, 30_000);

    const toScript = await upload("to-script");
    const script = await done("f/ops/receive");
    expect(script).toMatchObject({ id: toScript.run, status: "succeeded", result: { s3: toScript.s3, size: 4 } });

    const toFlow = await upload("to-flow");
    const flow = await done("f/ops/flow");
    expect(flow).toMatchObject({
      id: toFlow.run,
      status: "succeeded",
      result: { path: toFlow.s3, name: toFlow.s3.split("/").pop() },
    });
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  }, 60_000);
});
