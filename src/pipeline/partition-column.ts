/**
 * The column Sluice keeps a `// partitioned` materialization's partition in, and the load-time
 * check that the script's SELECT does not produce a column of that name itself (pure).
 */
import { slashCommentsToSql, splitSqlStatements } from "./materialize-body.js";
import { knownOutputNames } from "./select-outputs.js";

/**
 * The column holding the Sluice partition of a partitioned materialization (VARCHAR): the
 * table is DuckLake-partitioned by it, and Sluice adds it to every slice it writes.
 */
export const PARTITION_COLUMN = "_partition";

/** Why a managed partitioned materialization's trailing SELECT may not produce `_partition`, with the line. */
export interface ReservedColumnProblem {
  readonly line: number;
  readonly message: string;
}

/**
 * The problem of a `// partitioned` managed `// materialize` script whose trailing SELECT
 * produces a column named `_partition` (as far as its text says: `… AS _partition`, `t._partition`).
 */
export function reservedColumnProblem(source: string): ReservedColumnProblem | undefined {
  const last = splitSqlStatements(slashCommentsToSql(source)).at(-1);
  if (!last) return undefined;
  const name = knownOutputNames(last.text).find((n) => n.toLowerCase() === PARTITION_COLUMN);
  if (name === undefined) return undefined;
  return {
    line: last.line,
    message: `the SELECT produces a column named ${name}, which Sluice reserves for the partition of a // partitioned materialization (it adds ${PARTITION_COLUMN} to every slice itself); rename the column (AS another_name) or drop it`,
  };
}
