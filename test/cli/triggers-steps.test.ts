/**
 * `sluice triggers` lists the pipelines' schedule and webhook rows (`pipeline.json`) after the
 * native triggers, as the Triggers page does, instead of saying there are no triggers.
 */
import { expect, it } from "vitest";
import { bufferIO } from "../../src/cli/io.js";
import { run } from "../../src/cli/run.js";
import { makeProject } from "../helpers/project.js";
import { finished, spawnSluice } from "../helpers/processes.js";

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

it("sluice triggers pause|resume --help show the --dir, --db and --json they take from triggers", async () => {
  const root = makeProject({});
  for (const action of ["pause", "resume"]) {
    const help = await finished(spawnSluice(["triggers", action, "--help"], root));
    expect(help.code, help.err).toBe(0);
    for (const flag of ["--dir <dir>", "--db <url-or-file>", "--json"]) expect(help.out).toContain(flag);
  }
});
