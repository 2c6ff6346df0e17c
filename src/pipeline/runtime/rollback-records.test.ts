import { describe, expect, it } from "vitest";
import { undoneBy } from "./rollback-records.js";
import { schemaAt } from "./schema-history.js";

describe("records after a rollback", () => {
  it("undoes exactly the writes after the snapshot rolled back to and before the rollback's own", () => {
    const rollback = { to: 2, snapshot: 6 };
    expect([1, 2, 3, 5, 6, 7].map((w) => undoneBy(w, rollback))).toEqual([false, false, true, true, false, false]);
  });

  it("reads the schema version in effect at a snapshot", () => {
    const v = (version: number, snapshot_id: number) => ({ version, snapshot_id, run: "r", at: 0, columns: [] });
    const history = [v(1, 1), v(2, 4)];
    expect([0, 1, 3, 4, 9].map((s) => schemaAt(history, s)?.version ?? null)).toEqual([null, 1, 1, 2, 2]);
  });
});
