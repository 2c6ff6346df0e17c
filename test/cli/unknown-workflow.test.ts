/**
 * The error for an unknown workflow lists what a user can enqueue, without Sluice's own
 * workflows (`sluice:pipeline-plan`, `sluice:pipeline-backfill`, which a separate `sluice dev`
 * registers for the project's pipeline): `sluice enqueue nosuch` and `sluice logs --workflow
 * nosuch`, real binaries.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finished, type SluiceProcess, spawnSluice, startDev, stopDev } from "../helpers/processes.js";

const FILES = {
  "workflows/hello.ts": `
    import { defineWorkflow } from "sluice";
    export default defineWorkflow("hello", { handler: async () => "hi" });`,
  "f/p/ingest.ts": `// pipeline
import * as wmill from 'windmill-client';
export async function main() { await wmill.writeS3File({ s3: 'p/raw.json' }, '[]'); }
`,
};

describe("an unknown workflow's error", { timeout: 120_000 }, () => {
  let root: string;
  let dev: SluiceProcess;
  beforeAll(async () => {
    ({ root, dev } = await startDev(FILES));
  }, 60_000);
  afterAll(async () => {
    if (dev) await stopDev(dev);
  });

  it("lists the workflows a user can enqueue, not Sluice's own", async () => {
    // the dev process has registered the pipeline's plan and backfill workflows
    const url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
    const listed = JSON.stringify(await (await fetch(`${url}/api/workflows`)).json());
    expect(listed).toContain("sluice:pipeline-plan");
    expect(listed).toContain("sluice:pipeline-backfill");

    for (const argv of [
      ["enqueue", "nosuch", "{}"],
      ["logs", "--workflow", "nosuch"],
    ]) {
      const r = await finished(spawnSluice(argv, root));
      expect(r.code, r.out + r.err).toBe(1);
      expect(r.out).toBe("");
      expect(r.err).toBe('sluice: unknown workflow "nosuch"; known workflows: f/p/ingest, hello\n');
    }
  });
});
