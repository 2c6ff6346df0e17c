/**
 * Migration 9 (8 is taken by a parallel branch): the table the readiness probe's write check
 * empties and writes one row into (`postgres/ready-probe.ts`). No index and no variable-length
 * column, so the row goes into the table's one heap file and nowhere else.
 */
export const sql = /* sql */ `
CREATE TABLE ready_probe (pid integer NOT NULL, probed_at timestamptz NOT NULL DEFAULT now());
`;
