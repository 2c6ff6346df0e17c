import { describe, expect, it } from "vitest";
import { schemaAt } from "./schema-history.js";
import { type SliceEvent, slicesAt } from "./slice-timeline.js";

const write = (snapshot: number, partition: string): SliceEvent => ({
  kind: "write",
  snapshot,
  partition,
  at: snapshot,
  record: `${partition}@${snapshot}`,
});
const rollback = (snapshot: number, to: number): SliceEvent => ({ kind: "rollback", snapshot, to });
const records = (events: SliceEvent[], at: number) =>
  [...slicesAt(events, at).values()].map((w) => (w.kind === "write" ? w.record : "")).sort();

describe("records after a rollback", () => {
  it("keeps exactly the writes in effect at the snapshot rolled back to, and later writes", () => {
    const events = [write(1, "a"), write(2, "b"), write(3, "c"), write(5, "a"), rollback(6, 2), write(7, "d")];
    expect(records(events, 5)).toEqual(["a@5", "b@2", "c@3"]);
    // a@1 is back (a@5 replaced it, the rollback undid a@5), c@3 is gone, d@7 came after
    expect(records(events, 7)).toEqual(["a@1", "b@2", "d@7"]);
  });

  it("brings back what an earlier rollback removed when rolling back to before it", () => {
    const events = [write(1, "a"), write(2, "b"), write(3, "c"), rollback(4, 1), write(5, "b")];
    expect(records(events, 5)).toEqual(["a@1", "b@5"]);
    // back to snapshot 3 (before the first rollback): b@2 and c@3 return
    expect(records([...events, rollback(6, 3)], 6)).toEqual(["a@1", "b@2", "c@3"]);
    // back to snapshot 4 (the first rollback's): what it made, without the later b@5
    expect(records([...events, rollback(6, 4)], 6)).toEqual(["a@1"]);
    // a rollback to a snapshot after an earlier rollback, chained
    expect(records([...events, rollback(6, 3), rollback(7, 5)], 7)).toEqual(["a@1", "b@5"]);
  });

  it("applies a write recorded at a rollback's own snapshot after the rollback", () => {
    expect(records([write(1, "a"), write(2, "b"), rollback(3, 1), write(3, "c")], 3)).toEqual(["a@1", "c@3"]);
  });

  it("reads the schema version in effect at a snapshot", () => {
    const v = (version: number, snapshot_id: number) => ({ version, snapshot_id, run: "r", at: 0, columns: [] });
    const history = [v(1, 1), v(2, 4)];
    expect([0, 1, 3, 4, 9].map((s) => schemaAt(history, s)?.version ?? null)).toEqual([null, 1, 1, 2, 2]);
  });
});
