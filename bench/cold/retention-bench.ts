/**
 * Retention of a large history while another process claims: the engine's own scheduler
 * (leader, default retention of 184 days) deletes the seeded finished runs (200 days old) on
 * its first tick, while `claim-probe.js` claims in a loop. Prints how long retention took and
 * the longest claim during it (issue 15: claims never paused for more than 50 ms at a time).
 */
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createEngine } from "../../dist/index.js";
import { type Figure, fmt, quantile } from "../report.js";
import type { ColdStore } from "./stores.js";

interface ProbeResult {
  claims: number;
  slow: Array<[number, number]>;
}

/** Runs retention on `database` (seeded with old finished runs) beside a claiming process (scratch files in `dir`). */
export async function retentionFigures(store: ColdStore, dir: string, database: string): Promise<Figure[]> {
  const resultFile = join(dir, `claim-probe-${process.pid}.json`);
  const probe = spawn(process.execPath, [join(import.meta.dirname, "claim-probe.js"), database, resultFile], {
    env: { ...process.env, SLUICE_SECRET_KEY: "sluice-bench-secret-key-0123456789" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  const ready = new Promise<void>((resolve, reject) => {
    probe.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("READY")) resolve();
    });
    probe.once("exit", (code) => reject(new Error(`claim probe exited with ${code}`)));
  });
  const exited = new Promise<void>((resolve) => probe.once("exit", () => resolve()));
  await ready;
  await new Promise((r) => setTimeout(r, 1_000)); // a baseline second without retention
  const before = await store.bytes(database);
  const engine = createEngine({ database, worker: false, scheduler: true, captureConsole: false });
  const start = Date.now();
  await engine.start(); // its scheduler leads and runs retention on its first tick
  await engine.scheduler!.tick();
  const end = Date.now();
  const left = await engine.store.countRuns({ status: "succeeded" });
  await engine.stop();
  await new Promise((r) => setTimeout(r, 500));
  probe.kill("SIGTERM");
  await exited;
  const r = JSON.parse(readFileSync(resultFile, "utf8")) as ProbeResult;
  rmSync(resultFile, { force: true });
  const during = r.slow
    .filter(([at]) => at >= start && at <= end)
    .map(([, ms]) => ms)
    .sort((a, b) => a - b);
  const outside = r.slow.filter(([at]) => at < start || at > end).map(([, ms]) => ms);
  const max = during.length ? during[during.length - 1]! : 0;
  const over = during.filter((ms) => ms > 50).length;
  return [
    {
      name: "retention of the finished history (engine scheduler, paced transactions)",
      value: (end - start) / 1000,
      unit: "s",
      note: `${fmt(left)} succeeded runs left; database ${fmt(before / 1024 / 1024)} MiB before (file not shrunk)`,
    },
    {
      name: "longest claim of another process during retention",
      value: max,
      unit: "ms",
      target: "<= 50 ms",
      met: max <= 50,
      note: `${over} claims over 50 ms, ${during.length} over 5 ms (p99 of those ${fmt(quantile(during, 0.99) || 0)} ms); outside retention the longest was ${fmt(Math.max(0, ...outside))} ms; ${fmt(r.claims)} claims in all`,
    },
  ];
}
