/**
 * Lake figures: 1,000,000 rows materialized into 30 daily partitions, as one managed write
 * and as one managed partition replace per day (each its own snapshot, as a backfill does),
 * beside DuckDB's own
 * `COPY … TO (FORMAT parquet, PARTITION_BY (day))` of the same rows, and the time to read
 * one partition at an old snapshot. Every figure is the best of {@link RUNS} runs alternating
 * with the COPY on one connection (the machine is shared, so single runs swing 2x). The
 * replaces run twice: from a source clustered by day (a day's SELECT reads that day's rows,
 * as from a day-partitioned upstream) and from one that is not (each of the 30 SELECTs scans
 * all rows, which the one COPY does once).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { withDuckDb } from "../dist/assets/duckdb.js";
import { fsyncPaths } from "../dist/lake/fsync.js";
import { openLakeForWrite } from "../dist/lake/writer.js";
import { lakeRunFigure } from "./lake-run-bench.js";
import type { Figure } from "./report.js";

const ROWS = 1_000_000;
const DAYS = 30;
const RUNS = 3;
const CONCURRENCY = 2;
const SOURCE = `CREATE TABLE src AS SELECT range AS id, DATE '2026-01-01' + CAST(range % ${DAYS} AS INTEGER) AS day, round(random() * 100, 2) AS amount, 'k' || (range % 1000) AS kind FROM range(${ROWS})`;

/**
 * fsync every file and folder under `dir`, and `dir` and its parent, all at once (as a managed
 * write does for its files before the catalog commit; DuckDB's COPY does not fsync).
 */
function fsyncTree(dir: string): Promise<void> {
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true }).map((e) => join(e.parentPath, e.name));
  return fsyncPaths([...entries, dir, join(dir, "..")]);
}

/** Measure the lake figures in `dir`. */
export async function lakeFigures(dir: string): Promise<Figure[]> {
  const lake = await openLakeForWrite(join(dir, "lake.sqlite"), { dataPath: join(dir, "lake") });
  try {
    let copyMs = Number.POSITIVE_INFINITY;
    let oneMs = Number.POSITIVE_INFINITY;
    // CPU time of the process (every DuckDB thread): less swayed than wall time by other work on the machine.
    let copyCpu = Number.POSITIVE_INFINITY;
    let oneCpu = Number.POSITIVE_INFINITY;
    const cpu = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    await withDuckDb([], async (conn) => {
      await conn.run(SOURCE);
      for (let run = 0; run < RUNS; run++) {
        let c0 = cpu();
        let t0 = performance.now();
        await conn.run(
          `COPY (SELECT * FROM src) TO '${join(dir, `copy${run}`)}' (FORMAT parquet, COMPRESSION snappy, PARTITION_BY (day))`,
        );
        copyMs = Math.min(copyMs, performance.now() - t0);
        copyCpu = Math.min(copyCpu, cpu() - c0);
        c0 = cpu();
        t0 = performance.now();
        await lake.write(conn, {
          table: `events_once${run}`,
          mode: "replace",
          partitionBy: ["day"],
          source: "SELECT * FROM src",
        });
        oneMs = Math.min(oneMs, performance.now() - t0);
        oneCpu = Math.min(oneCpu, cpu() - c0);
      }
    });
    const days = Array.from({ length: DAYS }, (_, i) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10));
    let oldSnapshot = 0;
    /** 30 partition replaces into a fresh table per run, best of RUNS (wall and CPU), with COPY beside each run. */
    const replaces = (source: string, prefix: string) =>
      withDuckDb([], async (conn) => {
        await conn.run(source);
        const best = { wall: Number.POSITIVE_INFINITY, cpu: Number.POSITIVE_INFINITY };
        const copy = { wall: Number.POSITIVE_INFINITY, cpu: Number.POSITIVE_INFINITY };
        // the same COPY made as durable as a managed write (its files and folders fsynced after it)
        let durableCopy = Number.POSITIVE_INFINITY;
        // DuckDB alone running the same 30 SELECTs into 30 files: the floor of 30 replaces.
        const floor = { wall: Number.POSITIVE_INFINITY, cpu: Number.POSITIVE_INFINITY };
        for (let run = 0; run < RUNS; run++) {
          let c0 = cpu();
          let t0 = performance.now();
          for (const [i, day] of days.entries()) {
            const w = await lake.write(conn, {
              table: run === 0 && prefix === "c" ? "events" : `events_${prefix}${run}`,
              mode: "replace",
              partition: { day },
              source: `SELECT * FROM src WHERE day = DATE '${day}'`,
            });
            if (run === 0 && prefix === "c" && i === 9) oldSnapshot = w.snapshotId;
          }
          best.wall = Math.min(best.wall, performance.now() - t0);
          best.cpu = Math.min(best.cpu, cpu() - c0);
          c0 = cpu();
          t0 = performance.now();
          await conn.run(
            `COPY (SELECT * FROM src) TO '${join(dir, `copy_${prefix}${run}`)}' (FORMAT parquet, COMPRESSION snappy, PARTITION_BY (day))`,
          );
          copy.wall = Math.min(copy.wall, performance.now() - t0);
          copy.cpu = Math.min(copy.cpu, cpu() - c0);
          await fsyncTree(join(dir, `copy_${prefix}${run}`));
          durableCopy = Math.min(durableCopy, performance.now() - t0);
          c0 = cpu();
          t0 = performance.now();
          for (const day of days)
            await conn.run(
              `COPY (SELECT * FROM src WHERE day = DATE '${day}') TO '${join(dir, `floor_${prefix}${run}_${day}.parquet`)}' (FORMAT parquet, COMPRESSION snappy)`,
            );
          floor.wall = Math.min(floor.wall, performance.now() - t0);
          floor.cpu = Math.min(floor.cpu, cpu() - c0);
        }
        // Each replace beside DuckDB alone writing the same day (interleaved, so both see the same
        // machine): the CPU Sluice adds per replace, the steadiest figure on a shared machine.
        // The mean over all runs: a minimum of differences would pick the luckiest noise.
        // Wall time too, as the median of per-day differences (a mean would follow the worst stalls).
        let sluiceCpu = 0;
        let duckCpu = 0;
        const wallAdded: number[] = [];
        for (let run = 0; run < RUNS; run++) {
          for (const day of days) {
            let c0 = cpu();
            let t0 = performance.now();
            await lake.write(conn, {
              table: `events_${prefix}i${run}`,
              mode: "replace",
              partition: { day },
              source: `SELECT * FROM src WHERE day = DATE '${day}'`,
            });
            const sluiceWall = performance.now() - t0;
            sluiceCpu += cpu() - c0;
            c0 = cpu();
            t0 = performance.now();
            await conn.run(
              `COPY (SELECT * FROM src WHERE day = DATE '${day}') TO '${join(dir, `alone_${prefix}${run}_${day}.parquet`)}' (FORMAT parquet, COMPRESSION snappy)`,
            );
            wallAdded.push(sluiceWall - (performance.now() - t0));
            duckCpu += cpu() - c0;
          }
        }
        wallAdded.sort((a, b) => a - b);
        return {
          best,
          copy,
          durableCopy,
          floor,
          added: (sluiceCpu - duckCpu) / (RUNS * days.length),
          wallAdded: wallAdded[wallAdded.length >> 1]!,
        };
      });
    // Source clustered by day (as a day-partitioned upstream is): a day's SELECT reads that day's rows.
    const clustered = await replaces(`${SOURCE} ORDER BY day`, "c");
    // Source not clustered: every day's SELECT scans all 1,000,000 rows (30 scans where COPY makes one).
    const scattered = await replaces(SOURCE, "s");
    // Two at a time, as `sluice pipeline backfill --concurrency 2` runs partitions: each step its own DuckDB.
    let pairedMs = Number.POSITIVE_INFINITY;
    for (let run = 0; run < RUNS; run++) {
      const queue = [...days];
      const ready: Array<() => void> = [];
      const go = new Promise<void>((r) => ready.push(r));
      let started = 0;
      const worker = () =>
        withDuckDb([], async (conn) => {
          await conn.run(`${SOURCE} ORDER BY day`);
          if (++started === CONCURRENCY) ready[0]!();
          await go;
          const t0 = performance.now();
          for (let day = queue.shift(); day !== undefined; day = queue.shift())
            await lake.write(conn, {
              table: `events_p${run}`,
              mode: "replace",
              partition: { day },
              source: `SELECT * FROM src WHERE day = DATE '${day}'`,
            });
          return [t0, performance.now()] as const;
        });
      const spans = await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      pairedMs = Math.min(pairedMs, Math.max(...spans.map((x) => x[1])) - Math.min(...spans.map((x) => x[0])));
    }
    // Move on a few snapshots, then read day 5 as of the snapshot of the tenth day's write.
    await withDuckDb([], async (conn) => {
      for (const day of days.slice(0, 3))
        await lake.write(conn, {
          table: "events",
          mode: "replace",
          partition: { day },
          source: `SELECT 1::BIGINT AS id, DATE '${day}' AS day, 1.0::DOUBLE AS amount, 'x' AS kind`,
        });
    });
    const t1 = performance.now();
    const rows = await lake.reader.query(
      "events",
      { kind: "version", snapshotId: oldSnapshot },
      `SELECT count(*) AS n, sum(amount) AS s FROM {table} WHERE day = DATE '${days[5]}'`,
    );
    const readMs = performance.now() - t1;
    const oneRatio = oneMs / copyMs;
    const runFigure = await lakeRunFigure(join(dir, "runs"));
    const replaceFigure = (r: typeof clustered, what: string): Figure => {
      const ratio = r.best.wall / r.copy.wall;
      return {
        name: `Sluice lake: ${DAYS} managed partition replaces (${DAYS} snapshots), ${what}; best of ${RUNS}`,
        value: r.best.wall,
        unit: "ms",
        target: "<= 1.5x COPY",
        met: ratio <= 1.5,
        note: `${ratio.toFixed(2)}x COPY of the same table (${r.copy.wall.toFixed(0)} ms; CPU time ${(r.best.cpu / r.copy.cpu).toFixed(2)}x); ${(r.best.wall / r.durableCopy).toFixed(2)}x the COPY with its files fsynced, as durable as a managed write (${r.durableCopy.toFixed(0)} ms); DuckDB alone running the 30 SELECTs into 30 files: ${(r.floor.wall / r.copy.wall).toFixed(2)}x (CPU ${(r.floor.cpu / r.copy.cpu).toFixed(2)}x); per replace, interleaved with DuckDB alone writing the same day, Sluice adds ${r.added.toFixed(1)} ms CPU (mean) and ${r.wallAdded.toFixed(1)} ms wall (median)`,
      };
    };
    return [
      {
        name: `DuckDB COPY of ${ROWS.toLocaleString("en-US")} rows into ${DAYS} partitions (best of ${RUNS})`,
        value: copyMs,
        unit: "ms",
      },
      {
        name: `Sluice lake: one managed write of the same rows (${DAYS} files, 1 snapshot; best of ${RUNS})`,
        value: oneMs,
        unit: "ms",
        target: "<= 1.5x COPY",
        met: oneRatio <= 1.5,
        note: `${oneRatio.toFixed(2)}x COPY (CPU time ${(oneCpu / copyCpu).toFixed(2)}x)`,
      },
      replaceFigure(clustered, "source clustered by day"),
      replaceFigure(scattered, "source not clustered (each SELECT scans all rows)"),
      {
        name: `Sluice lake: the same ${DAYS} replaces ${CONCURRENCY} at a time (backfill --concurrency ${CONCURRENCY}), source clustered; best of ${RUNS}`,
        value: pairedMs,
        unit: "ms",
        target: "<= 1.5x COPY",
        met: pairedMs / clustered.copy.wall <= 1.5,
        note: `${(pairedMs / clustered.copy.wall).toFixed(2)}x COPY of the clustered source`,
      },
      runFigure,
      {
        name: `read one partition (${Number(rows[0]!.n).toLocaleString("en-US")} rows) at an old snapshot`,
        value: readMs,
        unit: "ms",
      },
    ];
  } finally {
    await lake.close();
  }
}
