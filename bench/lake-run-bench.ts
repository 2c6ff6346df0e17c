/**
 * What a pipeline run's lake work adds beside DuckDB alone writing the same day: a run replaces
 * one daily partition and reads the table's columns back (as `materialize` does), through the
 * project's lake as the pipeline host hands it out (`withProjectLake`, kept open between runs),
 * and, for comparison, opening and closing the lake itself as every run did before. The three
 * are interleaved day by day, so each sees the same machine.
 */
import { join } from "node:path";
import { resolveAssetConfig } from "../dist/assets/config.js";
import { withDuckDb } from "../dist/assets/duckdb.js";
import { SharedOpens } from "../dist/assets/shared-opens.js";
import { openProjectLake, type ProjectLakes, withProjectLake } from "../dist/lake/project-lake.js";
import type { LakeWriter } from "../dist/lake/writer.js";
import type { Figure } from "./report.js";

const ROWS = 1_000_000;
const DAYS = 30;
const RUNS = 3;
const SOURCE = `CREATE TABLE src AS SELECT range AS id, DATE '2026-01-01' + CAST(range % ${DAYS} AS INTEGER) AS day, round(random() * 100, 2) AS amount, 'k' || (range % 1000) AS kind FROM range(${ROWS}) ORDER BY day`;

const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** Measure a pipeline run's lake work per replace in `dir` (two projects: one per way of opening). */
export async function lakeRunFigure(dir: string): Promise<Figure> {
  const shared = new SharedOpens();
  const kept: ProjectLakes = { ...hostOf(join(dir, "kept")), shared };
  const perRun = hostOf(join(dir, "per-run"));
  const days = Array.from({ length: DAYS }, (_, i) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10));
  const added = { kept: { wall: [] as number[], cpu: 0 }, perRun: { wall: [] as number[], cpu: 0 } };
  try {
    await withDuckDb([], async (conn) => {
      await conn.run(SOURCE);
      const run = async (lake: LakeWriter, table: string, day: string) => {
        const w = await lake.write(conn, {
          table,
          mode: "replace",
          partition: { day },
          source: `SELECT * FROM src WHERE day = DATE '${day}'`,
        });
        await lake.reader.columns(table, { kind: "version", snapshotId: w.snapshotId });
      };
      const timed = async (fn: () => Promise<unknown>) => {
        const c0 = cpu();
        const t0 = performance.now();
        await fn();
        return { wall: performance.now() - t0, cpu: cpu() - c0 };
      };
      for (let r = 0; r < RUNS; r++) {
        for (const [i, day] of days.entries()) {
          const first = (i + r) % 2 === 0;
          const a = () => timed(() => withProjectLake(kept, "main", (lake) => run(lake, `t${r}`, day)));
          const b = () =>
            timed(async () => {
              const lake = await openProjectLake(perRun, "main");
              try {
                await run(lake, `t${r}`, day);
              } finally {
                await lake.close();
              }
            });
          const k = first ? await a() : await b();
          const p = first ? await b() : await a();
          const alone = await timed(() =>
            conn.run(
              `COPY (SELECT * FROM src WHERE day = DATE '${day}') TO '${join(dir, `run_alone_${r}_${day}.parquet`)}' (FORMAT parquet, COMPRESSION snappy)`,
            ),
          );
          const [kk, pp] = first ? [k, p] : [p, k];
          added.kept.wall.push(kk.wall - alone.wall);
          added.kept.cpu += kk.cpu - alone.cpu;
          added.perRun.wall.push(pp.wall - alone.wall);
          added.perRun.cpu += pp.cpu - alone.cpu;
        }
      }
    });
  } finally {
    await shared.close();
  }
  const n = RUNS * DAYS;
  return {
    name: `Sluice lake: one pipeline run's lake work per replace over DuckDB alone (replace a day, read the columns; ${n} runs), wall median`,
    value: median(added.kept.wall),
    unit: "ms",
    note: `lake kept open by the host; CPU ${(added.kept.cpu / n).toFixed(1)} ms (mean); opened and closed by each run instead: ${median(added.perRun.wall).toFixed(1)} ms wall, ${(added.perRun.cpu / n).toFixed(1)} ms CPU`,
  };
}

function hostOf(root: string): ProjectLakes {
  return { config: resolveAssetConfig(root, undefined, {}), lakeCatalog: { kind: "sqlite" } };
}
