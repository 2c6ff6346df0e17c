/**
 * Asset helpers in Python workflows as code (seed 001's `wmill` names in seed 000's Python
 * runs): a script called with `task_script`, an async `@task` (calling the sync helpers from
 * the event loop's thread) and the workflow itself write and read objects, resources and
 * data tables on the same storage as TypeScript code, under a separate `sluice dev`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";

const WRITER = `import json
import wmill

def main(name: str):
    wmill.write_s3_file({"s3": f"out/{name}.json"}, json.dumps({"from": "script", "name": name}))
    wmill.set_resource(f"u/test/{name}", {"owner": name})
    try:
        missing = wmill.load_s3_file("s3://out/absent.json")
    except wmill.SluiceError as err:
        missing = [err.code, str(err)]
    return {
        "read": json.loads(wmill.load_s3_file({"s3": f"out/{name}.json"})),
        "missing": missing,
        "resource": wmill.get_resource(f"u/test/{name}"),
    }
`;

const FLOW = `import json
import wmill
from wmill import step, task, task_script, workflow

@task
async def reader(name: str):
    # A sync helper called from async code: it blocks the event loop's thread only until Sluice answers.
    raw = wmill.load_s3_file({"s3": f"out/{name}.json"})
    rows = wmill.datatable().query("SELECT $1::INTEGER + 1 AS next", 41).fetch()
    return {"bytes": len(raw), "next": rows[0]["next"]}

@task
def big():
    # Answers larger than one pipe read (3 MiB, 4 MiB as base64) arrive whole.
    data = bytes(range(256)) * (3 * 4096)
    wmill.write_s3_file({"s3": "out/big.bin"}, data)
    back = wmill.load_s3_file({"s3": "out/big.bin"})
    return [len(back), back == data]

@task
def failing():
    try:
        wmill.write_s3_file({"s3": "../escape.json"}, b"x")
    except wmill.SluiceError as err:
        return err.code

@workflow
async def main(name: str):
    written = await task_script("f/assets/writer")(name=name)
    read = await reader(name)
    refused = await failing()
    large = await big()
    ts = await task_script("f/assets/ts_reader")(key=f"out/{name}.json")
    # In the workflow's own code: made inside a step so a replay does not write again.
    key = await step("mark", lambda: wmill.write_s3_file({"s3": f"out/{name}.done"}, "ok")["s3"])
    return {"written": written, "read": read, "refused": refused, "large": large, "ts": ts, "mark": key}
`;

const TS_READER = `import * as wmill from 'windmill-client';

export async function main(key: string) {
  return JSON.parse(new TextDecoder().decode(await wmill.loadS3File({ s3: key })));
}
`;

describe("Python asset helpers in workflows as code", () => {
  it("task_script scripts, tasks and steps read and write objects, resources and data tables shared with TypeScript", async () => {
    const root = makeProject(
      { "f/assets/writer.py": WRITER, "f/assets/flow.py": FLOW, "f/assets/ts_reader.ts": TS_READER },
      "sluice-py-assets-",
    );
    const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root);
    try {
      await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
      const enq = spawnSluice(["enqueue", "f/assets/flow", '{"name": "ada"}', "--wait", "--json"], root);
      expect(await enq.exited, enq.stderr() + dev.output()).toBe(0);
      const out = JSON.parse(enq.stdout());
      expect(out.status, JSON.stringify(out)).toBe("succeeded");
      expect(out.result).toEqual({
        written: {
          read: { from: "script", name: "ada" },
          missing: [
            "S3_OBJECT_NOT_FOUND",
            expect.stringMatching(
              /^no object out\/absent\.json in the object store \(.+\); run the script that writes/,
            ),
          ],
          resource: { owner: "ada" },
        },
        read: { bytes: `{"from": "script", "name": "ada"}`.length, next: 42 },
        refused: "ASSET_PATH_INVALID",
        large: [3 * 1024 * 1024, true],
        ts: { from: "script", name: "ada" },
        mark: "out/ada.done",
      });
    } finally {
      dev.proc.kill("SIGTERM");
      await dev.exited;
    }
    // The objects are in the project's object store, where TypeScript code and the UI find them.
    expect(readFileSync(join(root, ".sluice", "s3", "out", "ada.done"), "utf8")).toBe("ok");
    expect(JSON.parse(readFileSync(join(root, ".sluice", "s3", "out", "ada.json"), "utf8"))).toEqual({
      from: "script",
      name: "ada",
    });
  }, 90_000);
});
