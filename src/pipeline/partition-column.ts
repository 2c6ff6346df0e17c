/**
 * The column Sluice keeps a `// partitioned` materialization's partition in. That a script's
 * SELECT does not produce it itself is checked on DuckDB's parse when the pipeline loads
 * (`runtime/reserved-column.ts`) and again when a run writes (`runtime/runners/sql-lake.ts`).
 */

/**
 * The column holding the Sluice partition of a partitioned materialization (VARCHAR): the
 * table is DuckLake-partitioned by it, and Sluice adds it to every slice it writes.
 */
export const PARTITION_COLUMN = "_partition";
