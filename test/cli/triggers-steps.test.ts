/**
 * `sluice triggers` lists the pipelines' schedule and webhook rows (`pipeline.json`) after the
 * native triggers, as the Triggers page does, instead of saying there are no triggers.
 */
import { expect, it } from "vitest";
import { bufferIO } from "../../src/cli/io.js";
import { run } from "../../src/cli/run.js";
import { makeProject } from "../helpers/project.js";

it("lists a pipeline step's schedule and webhook with the file that declares them", async () => {
  const root = makeProject({
    "f/hooks/pipeline.json": JSON.stringify({
      triggers: { nightly: { schedule: { cron: "0 3 * * *", timezone: "UTC" } }, receive: { webhook: true } },
    }),
    "f/hooks/nightly.ts": "// pipeline\n// on schedule\nexport async function main() {}\n",
    "f/hooks/receive.ts": "// pipeline\n// on webhook\nexport async function main(n: number) { return n; }\n",
  });
  const io = bufferIO(root);
  expect(await run(["triggers"], io)).toBe(0);
  const lines = io.out.join("").split("\n");
  expect(lines[0]).toMatch(/^no native triggers/);
  expect(lines.find((l) => l.startsWith("f/hooks/nightly"))?.split(/\s{2,}/)).toEqual([
    "f/hooks/nightly",
    "schedule",
    "0 3 * * * UTC",
    "f/hooks/pipeline.json",
  ]);
  expect(lines.find((l) => l.startsWith("f/hooks/receive"))?.split(/\s{2,}/)).toEqual([
    "f/hooks/receive",
    "webhook",
    "POST /api/pipelines/webhook/f/hooks/receive",
    "f/hooks/pipeline.json",
  ]);
});
