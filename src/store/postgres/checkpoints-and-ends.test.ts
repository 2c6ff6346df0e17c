import { describe, expect, it } from "vitest";
import type { Command, RunOutcome, RunRecord } from "../types.js";
import { checkpointsAndEnds } from "./checkpoints-and-ends.js";

const lease = (runId: string, token = 1) => ({ runId, token });
const save = (id: string, token = 1): Command => ({ verb: "saveSteps", lease: lease(id, token), steps: [] });
const record = (id: string, parentId: string | null = null) => ({ id, parentId }) as RunRecord;
const ok: RunOutcome = { status: "succeeded", result: null };
const end = (id: string, over: Partial<Extract<Command, { verb: "complete" }>> = {}): Command => ({
  verb: "complete",
  lease: lease(id),
  outcome: ok,
  claimed: record(id),
  ...over,
});
const ids = (cmds: Command[]) => cmds.map((c) => ("lease" in c ? c.lease.runId : c.verb));

describe("Postgres batches of checkpoints and final outcomes", () => {
  it("takes checkpoints and outcomes of several runs, each run's checkpoint before its outcome", () => {
    const batch = checkpointsAndEnds([
      save("a"),
      save("b"),
      end("a"),
      end("c"),
      save("d", 4),
      end("d", { lease: lease("d", 4) }),
    ]);
    expect(ids(batch!.saves)).toEqual(["a", "b", "d"]);
    expect(ids(batch!.ends)).toEqual(["a", "c", "d"]);
    expect(batch!.leases).toEqual([lease("a"), lease("b"), lease("c"), lease("d", 4)]);
    expect(batch!.commands).toHaveLength(6);
  });

  it("leaves to the general path what needs an order or a statement of its own", () => {
    // A second checkpoint or outcome of a run, or a checkpoint after the outcome.
    expect(checkpointsAndEnds([save("a"), save("a"), end("a")])).toBeNull();
    expect(checkpointsAndEnds([save("a"), end("a"), end("a")])).toBeNull();
    expect(checkpointsAndEnds([end("a"), save("a")])).toBeNull();
    // Two claims of one run in one batch.
    expect(checkpointsAndEnds([save("a", 2), end("a")])).toBeNull();
    // A retry, an outcome without its claimed record or of a child run (a parent's step to resolve).
    const retry: RunOutcome = { status: "retry", error: { name: "Error", message: "x" }, delayMs: 0 };
    expect(checkpointsAndEnds([save("a"), end("a", { outcome: retry })])).toBeNull();
    expect(checkpointsAndEnds([save("a"), end("a", { claimed: undefined })])).toBeNull();
    expect(checkpointsAndEnds([save("a"), end("a", { claimed: record("a", "p") })])).toBeNull();
    // Another verb.
    expect(checkpointsAndEnds([save("a"), end("a"), { verb: "heartbeat", leases: [], leaseMs: 1 }])).toBeNull();
  });
});
