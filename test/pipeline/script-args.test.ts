/**
 * A Python pipeline script's arguments are checked at enqueue against its `main`'s type hints, by
 * the rule workflows use: `sluice enqueue`, the API (`POST /api/runs`, `POST /api/pipelines/scripts/
 * …/run`) and the `--args` of `sluice pipeline run` / `backfill` refuse a value of the wrong JSON
 * type, naming the parameter, its hint and the value, and store nothing. What the runner accepts
 * still runs: arguments `main` does not take (dropped), a missing one or `null` (the script's own
 * business, as before), `Optional[...]`, and the cascade's runs (which carry only Sluice's metadata).
 * Real `sluice dev` and the real binary for every command; real python3.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SluiceProcess, spawnSluice, startDev, stopDev } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";

const FILES = {
  "f/pipe/step.py": `# pipeline
from typing import Optional

import wmill


def main(n: int, label: Optional[str] = None, items: list[int] = None, partition: str = ""):
    wmill.write_s3_file("pipe/out.json", str(n))
    return {"n": n, "label": label, "items": items}
`,
  "f/pipe/down.py": `# pipeline
# on s3://pipe/out.json


def main(n: int = 5):
    return n
`,
  "f/daily/day.py": `# pipeline
# partitioned daily


def main(partition: str, n: int = 1):
    return [partition, n]
`,
};

const TWO = 'parameter "n" of f/pipe/step is int, so it takes a whole number: got "two" (a string)';

describe("a Python pipeline script's arguments are type-checked at enqueue", { timeout: 120_000 }, () => {
  let root: string;
  let dev: SluiceProcess;
  let api: string;
  beforeAll(async () => {
    ({ root, dev } = await startDev(FILES));
    api = dev.output().match(/UI: (http:\/\/127\.0\.0\.1:\d+)/)![1]!;
  }, 60_000);
  afterAll(() => stopDev(dev));

  const cli = async (...args: string[]) => {
    const p = spawnSluice(args, root);
    const code = await p.exited;
    return { code, out: p.stdout(), err: p.stderr() };
  };
  const runs = async (...filter: string[]) =>
    JSON.parse((await cli("runs", "--json", "--limit", "1000", ...filter)).out) as Array<{
      id: string;
      workflow: string;
      status: string;
      result: unknown;
    }>;
  const post = (path: string, body: unknown) =>
    fetch(`${api}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("refuses a value of the wrong type on every path, before anything is stored", async () => {
    const before = await runs();

    const enq = await cli("enqueue", "f/pipe/step", '{"n": "two"}');
    expect(enq.code).toBe(1);
    expect(enq.err).toBe(`sluice: ${TWO}\n`);

    const script = await post("/api/pipelines/scripts/f/pipe/step.py/run", { args: { n: "two" } });
    expect(script.status).toBe(400);
    expect(await script.json()).toMatchObject({ error: { code: "INVALID_ARGUMENTS", message: TWO } });
    const direct = await post("/api/runs", { workflow: "f/pipe/step", payload: { n: 1, items: "1,2" } });
    expect(direct.status).toBe(400);
    expect(await direct.json()).toMatchObject({
      error: {
        code: "INVALID_ARGUMENTS",
        message: 'parameter "items" of f/pipe/step is list, so it takes an array: got "1,2" (a string)',
      },
    });

    const plan = await cli("pipeline", "run", "f/pipe", "--args", '{"n": "two"}');
    expect(plan.code).toBe(1);
    expect(plan.err).toContain(TWO);
    const backfill = await cli(
      "pipeline",
      "backfill",
      "f/daily",
      "--from-partition",
      "2026-05-01",
      "--to-partition",
      "2026-05-02",
      "--args",
      '{"n": 1.5}',
    );
    expect(backfill.code).toBe(1);
    expect(backfill.err).toContain(
      'parameter "n" of f/daily/day is int, so it takes a whole number: got 1.5 (a number)',
    );

    expect(await runs()).toEqual(before);
  });

  it("runs what the runner accepts: unknown and missing arguments, None, Optional; the cascade", async () => {
    const ok = await cli(
      "enqueue",
      "f/pipe/step",
      '{"n": 2, "label": null, "items": [1, 2], "extra": "dropped", "partition": 7, "_sluice": {"cascade": false}}',
      "--wait",
      "--json",
    );
    expect(ok.code, ok.err + dev.output()).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ status: "succeeded", result: { n: 2, label: null, items: [1, 2] } });

    // A missing required argument is the script's failure, as before (cascades start scripts without
    // arguments); null is let through like a missing one.
    const missing = await cli("enqueue", "f/pipe/step", "{}", "--wait", "--json");
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.out)).toMatchObject({ status: "failed" });
    const none = await cli("enqueue", "f/pipe/step", '{"n": null, "_sluice": {"cascade": false}}', "--wait", "--json");
    expect(none.code, none.err).toBe(0);
    expect(JSON.parse(none.out)).toMatchObject({ status: "succeeded", result: { n: null } });

    const cascading = await cli("enqueue", "f/pipe/step", '{"n": 3, "label": "x"}', "--wait");
    expect(cascading.code, cascading.err).toBe(0);
    await eventually(
      async () => (await runs("--workflow", "f/pipe/down")).some((r) => r.status === "succeeded"),
      30_000,
    );
    expect((await runs("--workflow", "f/pipe/down")).map((r) => r.result)).toContain(5);

    const plan = await cli("pipeline", "run", "f/pipe", "--args", '{"n": 4, "other": true}');
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect((await runs("--workflow", "f/pipe/down")).map((r) => r.result)).toContain(4);
  });
});
