/**
 * The author a managed lake write of a pipeline run commits under (pure): how a retried
 * attempt finds what an earlier attempt of the same run committed (`runners/append-retry.ts`).
 * Kept apart from the lake so the SDK host can name writes without loading it.
 */

/** The author a managed SQL write of run `runId` commits under. */
export const runAuthor = (runId: string): string => `sluice run ${runId}`;

/** The author of the `call`-th `ducklake()` write (1, 2, … in call order) of an attempt of run `runId`. */
export const codeWriteAuthor = (runId: string, call: number, table: string, partition: string | undefined): string =>
  `${runAuthor(runId)} write ${call} ${table}${partition === undefined ? "" : ` ${partition}`}`;
