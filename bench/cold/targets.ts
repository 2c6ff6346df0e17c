/** The targets issue 15 sets per store, and the figures of a cold run printed against them. */
import { type Figure, fmt } from "../report.js";
import type { RawLimits } from "./limits.js";
import type { Measurement, Workload } from "./workloads.js";

/** Issue 15's targets for one store. */
export interface ColdTargets {
  w1StepsPerSecond: number;
  w2Seconds: number;
  w3RunsPerSecond: number;
  w4P50Ms: number;
  w4P99Ms: number;
}

/** SQLite: W3 ≥ 8,000 runs/s, W4 p50 ≤ 1.0 ms / p99 ≤ 3 ms, W1 ≥ 15,000 steps/s, W2 ≤ 0.05 s. */
export const SQLITE_TARGETS: ColdTargets = {
  w1StepsPerSecond: 15_000,
  w2Seconds: 0.05,
  w3RunsPerSecond: 8_000,
  w4P50Ms: 1.0,
  w4P99Ms: 3,
};

/** Postgres: W3 ≥ 3,500 runs/s, W4 p50 ≤ 3.5 ms / p99 ≤ 8 ms, W1 ≥ 8,000 steps/s, W2 ≤ 0.2 s. */
export const POSTGRES_TARGETS: ColdTargets = {
  w1StepsPerSecond: 8_000,
  w2Seconds: 0.2,
  w3RunsPerSecond: 3_500,
  w4P50Ms: 3.5,
  w4P99Ms: 8,
};

/** Median of numbers (the middle of 3). */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Measurements of each workload (3 runs each). */
export type Results = Partial<Record<Workload, Measurement[]>>;

const runsNote = (xs: number[]) => `runs ${xs.map(fmt).join(" / ")}`;

/** The figures of a cold run: medians beside the targets and the raw limits (as ratios). */
export function coldFigures(r: Results, raw: RawLimits, t: ColdTargets): Figure[] {
  const out: Figure[] = [];
  const commitMs = 1000 / raw.commitsPerSecond;
  const inCommits = (ms: number) =>
    `${(ms / raw.fsyncMs).toFixed(1)} fsyncs, ${(ms / commitMs).toFixed(1)} raw commits`;
  if (r.W1) {
    const xs = r.W1.map((m) => m.value);
    const v = median(xs);
    out.push({
      name: "W1 200 workflows x 5 ctx.run steps",
      value: v,
      unit: "steps/s",
      target: `>= ${fmt(t.w1StepsPerSecond)}`,
      met: v >= t.w1StepsPerSecond,
      note: `${(v / raw.commitsPerSecond).toFixed(1)}x raw commit rate; ${runsNote(xs)}`,
    });
  }
  if (r.W2) {
    const xs = r.W2.map((m) => m.value);
    const v = median(xs);
    out.push({
      name: "W2 fan-out of 500 children + join",
      value: v,
      unit: "s",
      target: `<= ${t.w2Seconds}`,
      met: v <= t.w2Seconds,
      note: `${inCommits(v * 1000)}; ${runsNote(xs)}`,
    });
  }
  if (r.W3) {
    const xs = r.W3.map((m) => m.value);
    const v = median(xs);
    out.push({
      name: "W3 5,000 one-shot runs, worker concurrency 10",
      value: v,
      unit: "runs/s",
      target: `>= ${fmt(t.w3RunsPerSecond)}`,
      met: v >= t.w3RunsPerSecond,
      note: `${(v / raw.commitsPerSecond).toFixed(2)}x raw commit rate; ${runsNote(xs)}`,
    });
  }
  if (r.W4) {
    const p50s = r.W4.map((m) => m.value);
    const p99s = r.W4.map((m) => m.p99!);
    const p50 = median(p50s);
    const p99 = median(p99s);
    out.push(
      {
        name: "W4 100 sequential one-step runs, p50",
        value: p50,
        unit: "ms",
        target: `<= ${t.w4P50Ms}`,
        met: p50 <= t.w4P50Ms,
        note: `${inCommits(p50)}; ${runsNote(p50s)}`,
      },
      {
        name: "W4 100 sequential one-step runs, p99",
        value: p99,
        unit: "ms",
        target: `<= ${t.w4P99Ms}`,
        met: p99 <= t.w4P99Ms,
        note: `${inCommits(p99)}; ${runsNote(p99s)}`,
      },
    );
  }
  return out;
}

/** Large-store figures beside the empty-store ones: each within 20 % of it (W4: p50 and p99 each). */
export function flatFigures(large: Results, empty: Results): Figure[] {
  const out: Figure[] = [];
  const row = (
    name: string,
    unit: string,
    v: number,
    base: number | undefined,
    higherIsBetter: boolean,
    xs: number[],
  ) => {
    if (base === undefined) return out.push({ name, value: v, unit, note: runsNote(xs) });
    const change = (v - base) / base;
    const met = higherIsBetter ? v >= 0.8 * base : v <= 1.2 * base;
    out.push({
      name,
      value: v,
      unit,
      target: `within 20 % of empty (${fmt(base)})`,
      met,
      note: `${change >= 0 ? "+" : ""}${(change * 100).toFixed(0)} %; ${runsNote(xs)}`,
    });
  };
  const med = (r: Results, w: Workload, pick: (m: Measurement) => number) =>
    r[w] ? median(r[w]!.map(pick)) : undefined;
  if (large.W1)
    row(
      "W1 steps",
      "steps/s",
      med(large, "W1", (m) => m.value)!,
      med(empty, "W1", (m) => m.value),
      true,
      large.W1.map((m) => m.value),
    );
  if (large.W3)
    row(
      "W3 one-shot runs, concurrency 10",
      "runs/s",
      med(large, "W3", (m) => m.value)!,
      med(empty, "W3", (m) => m.value),
      true,
      large.W3.map((m) => m.value),
    );
  if (large.W4) {
    row(
      "W4 sequential, p50",
      "ms",
      med(large, "W4", (m) => m.value)!,
      med(empty, "W4", (m) => m.value),
      false,
      large.W4.map((m) => m.value),
    );
    row(
      "W4 sequential, p99",
      "ms",
      med(large, "W4", (m) => m.p99!)!,
      med(empty, "W4", (m) => m.p99!),
      false,
      large.W4.map((m) => m.p99!),
    );
  }
  return out;
}
