/**
 * Durable backfills (issue 14): a 365-partition daily backfill of a 3-step chain with
 * `--concurrency 8`, run as users run it (`sluice pipeline backfill`, in-process through
 * the CLI's `run(argv, io)`, its own worker, one SQLite file). Two chains: no-op steps
 * (everything measured is the scheduler: backfill run, one plan run per partition, step
 * runs, done marks, checkpoints) and 20 ms steps (the overhead is the wall time beyond
 * the ideal 365 × 3 × 20 ms / 8).
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { run } from "../dist/cli/run.js";
import { bufferIO } from "../dist/cli/io.js";
import type { Figure } from "./report.js";

const REPO = resolve(import.meta.dirname, "..");

function step(input: string | null, output: string, sleepMs: number): string {
  return `// pipeline
${input ? `// on s3://bench/${input}/{partition}.json` : "// partitioned daily"}
import * as wmill from 'windmill-client';
export async function main(partition: string) {
  ${sleepMs > 0 ? `await new Promise((r) => setTimeout(r, ${sleepMs}));` : ""}
  await wmill.writeS3File({ s3: \`bench/${output}/\${partition}.json\` }, '{}');
}
`;
}

async function backfill(dir: string, name: string, sleepMs: number, partitions: number, concurrency: number) {
  const root = join(dir, name);
  mkdirSync(join(root, "f", "chain"), { recursive: true });
  symlinkSync(join(REPO, "node_modules"), join(root, "node_modules"), "dir");
  writeFileSync(join(root, "f", "chain", "a.ts"), step(null, "a", sleepMs));
  writeFileSync(join(root, "f", "chain", "b.ts"), step("a", "b", sleepMs));
  writeFileSync(join(root, "f", "chain", "c.ts"), step("b", "c", sleepMs));
  const from = new Date(Date.UTC(2025, 0, 1));
  const to = new Date(from.getTime() + (partitions - 1) * 86_400_000);
  const io = bufferIO(root);
  const t0 = performance.now();
  const code = await run(
    [
      "pipeline",
      "backfill",
      "f/chain",
      "--from-partition",
      from.toISOString().slice(0, 10),
      "--to-partition",
      to.toISOString().slice(0, 10),
      "--concurrency",
      String(concurrency),
      "--json",
    ],
    io,
  );
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`backfill failed (${code}): ${io.err.join("")}${io.out.join("").slice(-2000)}`);
  const result = JSON.parse(io.out.join("")) as { status: string; counts: { succeeded: number } };
  if (result.status !== "succeeded" || result.counts.succeeded !== partitions)
    throw new Error(`backfill did not succeed for every partition: ${JSON.stringify(result.counts)}`);
  return ms;
}

/** Partitions per second and the scheduler's overhead per partition. */
export async function backfillFigures(dir: string, partitions = 365, concurrency = 8): Promise<Figure[]> {
  const noop = await backfill(dir, "backfill-noop", 0, partitions, concurrency);
  const sleepMs = 20;
  const slow = await backfill(dir, "backfill-20ms", sleepMs, partitions, concurrency);
  const ideal = (partitions * 3 * sleepMs) / concurrency;
  return [
    {
      name: `${partitions} daily partitions × 3 no-op steps, --concurrency ${concurrency}`,
      value: (partitions * 1000) / noop,
      unit: "partitions/s",
      note: `${(noop / 1000).toFixed(1)} s in all`,
    },
    {
      name: "scheduler time per partition (no-op steps: wall time / partitions)",
      value: noop / partitions,
      unit: "ms",
    },
    {
      name: `${partitions} partitions × 3 steps of ${sleepMs} ms, --concurrency ${concurrency}`,
      value: (partitions * 1000) / slow,
      unit: "partitions/s",
      note: `${(slow / 1000).toFixed(1)} s; ideal ${(ideal / 1000).toFixed(1)} s`,
    },
    {
      name: `overhead per partition beyond the ideal (${sleepMs} ms steps)`,
      value: (slow - ideal) / partitions,
      unit: "ms",
    },
  ];
}
