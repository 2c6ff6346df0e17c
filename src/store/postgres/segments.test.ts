import { describe, expect, it } from "vitest";
import type { Command, Lease, RunOutcome } from "../types.js";
import { segments } from "./commit.js";

const lease = (runId: string): Lease => ({ runId, token: 1 });
const save = (id: string): Command => ({ verb: "saveSteps", lease: lease(id), steps: [] });
const outcome: RunOutcome = { status: "succeeded", result: null };
const complete = (id: string): Command => ({ verb: "complete", lease: lease(id), outcome });

describe("Postgres batch segments", () => {
  it("keeps a run's outcome right behind its own checkpoint in one segment", () => {
    expect(segments([save("a"), complete("a"), save("b"), complete("b")])).toEqual([[0, 1, 2, 3]]);
  });

  it("cuts wherever else a run repeats", () => {
    expect(segments([save("a"), save("a")])).toEqual([[0], [1]]);
    expect(segments([complete("a"), save("a")])).toEqual([[0], [1]]);
    expect(segments([save("a"), complete("a"), complete("a")])).toEqual([[0, 1], [2]]);
    expect(segments([complete("a"), complete("a")])).toEqual([[0], [1]]);
  });
});
