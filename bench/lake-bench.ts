/**
 * Lake figures: 1,000,000 rows materialized into 30 daily partitions, as one managed write
 * and as one managed partition replace per day (each its own snapshot, as a backfill does),
 * beside DuckDB's own
 * `COPY … TO (FORMAT parquet, PARTITION_BY (day))` of the same rows, and the time to read
 * one partition at an old snapshot. COPY and the one-write figure are each the best of
 * {@link RUNS} runs alternating on one connection (the machine is shared, so single runs swing 2x).
 */
import { join } from "node:path";
import { withDuckDb } from "../dist/assets/duckdb.js";
import { openLakeForWrite } from "../dist/lake/writer.js";
import type { Figure } from "./report.js";

const ROWS = 1_000_000;
const DAYS = 30;
const RUNS = 3;
const SOURCE = `CREATE TABLE src AS SELECT range AS id, DATE '2026-01-01' + CAST(range % ${DAYS} AS INTEGER) AS day, round(random() * 100, 2) AS amount, 'k' || (range % 1000) AS kind FROM range(${ROWS})`;

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
    const days: string[] = [];
    let oldSnapshot = 0;
    const writeMs = await withDuckDb([], async (conn) => {
      await conn.run(SOURCE);
      const t0 = performance.now();
      for (let i = 0; i < DAYS; i++) {
        const day = new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10);
        days.push(day);
        const w = await lake.write(conn, {
          table: "events",
          mode: "replace",
          partition: { day },
          source: `SELECT * FROM src WHERE day = DATE '${day}'`,
        });
        if (i === 9) oldSnapshot = w.snapshotId;
      }
      return performance.now() - t0;
    });
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
    const ratio = writeMs / copyMs;
    const oneRatio = oneMs / copyMs;
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
      {
        name: `Sluice lake: ${DAYS} managed partition replaces (${DAYS} snapshots), same rows`,
        value: writeMs,
        unit: "ms",
        target: "<= 1.5x COPY",
        met: ratio <= 1.5,
        note: `${ratio.toFixed(2)}x COPY`,
      },
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
