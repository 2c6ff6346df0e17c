/**
 * Reading an object that was never written, as users meet it in the demo: `sluice pipeline run
 * f/pipeline_demo --from events.ts --to rollup.sql` runs events but not sessions, so enrich's
 * `loadS3File` of the day's sessions fails naming the key and the object store (it returned
 * undefined, and JSON.parse failed with `"undefined" is not valid JSON`); once sessions ran for
 * the day, the same command succeeds.
 */
import { cpSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { finished, spawnSluice } from "../helpers/processes.js";
import { makeProject, REPO } from "../helpers/project.js";

describe("loadS3File of a missing object", () => {
  let root: string;
  const sluice = (...args: string[]) => finished(spawnSluice(args, root));
  beforeAll(() => {
    root = makeProject({}, "sluice-missing-object-");
    cpSync(join(REPO, "examples", "f", "pipeline_demo"), join(root, "f", "pipeline_demo"), { recursive: true });
  });

  it("fails naming the key and the store, and the run succeeds once the upstream wrote it", async () => {
    const slice = ["pipeline", "run", "f/pipeline_demo", "--from", "events.ts", "--to", "rollup.sql"];
    const failed = await sluice(...slice, "--partition", "2026-05-16");
    expect(failed.code).toBe(1);
    const store = join(realpathSync(root), ".sluice", "s3");
    expect(failed.out).toContain(`✗ failed  f/pipeline_demo/enrich.ts  (`);
    expect(failed.out).toContain(
      `no object demo/sessions/2026-05-16.json in the object store (${store}); run the script that writes s3://demo/sessions/2026-05-16.json first (for a partitioned key, for this partition), or fix the key`,
    );
    expect(failed.out).not.toContain("is not valid JSON");

    const sessions = await sluice(
      "pipeline",
      "run",
      "f/pipeline_demo",
      "--from",
      "sessions.py",
      "--to",
      "sessions.py",
      "--partition",
      "2026-05-16",
    );
    expect(sessions.code, sessions.out + sessions.err).toBe(0);
    const again = await sluice(...slice, "--partition", "2026-05-16", "--json");
    expect(again.code, again.out + again.err).toBe(0);
    const steps = (JSON.parse(again.out) as { steps: { step: string; result: unknown }[] }).steps;
    expect(steps.map((s) => s.step)).toEqual([
      "f/pipeline_demo/events.ts",
      "f/pipeline_demo/enrich.ts",
      "f/pipeline_demo/rollup.sql",
    ]);
    expect(steps[2]!.result).toEqual([
      { kind: "click", events: 1, minutes: 12 },
      { kind: "view", events: 2, minutes: 15 },
    ]);
  });
});
