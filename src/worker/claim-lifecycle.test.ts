import { describe, expect, it } from "vitest";
import { ClaimLifecycle, type ClaimEvent, type ClaimState, IllegalClaimTransitionError } from "./claim-lifecycle.js";

/** A lifecycle driven through `events` from `running`. */
function after(...events: ClaimEvent[]): ClaimLifecycle {
  const l = new ClaimLifecycle();
  for (const e of events) l.fire(e);
  return l;
}

const ALL_EVENTS: ClaimEvent[] = ["settle", "suspend", "parked", "finish", "written", "refused", "fence", "abandon"];

describe("claim lifecycle", () => {
  it("walks the paths a claim takes: completed, parked, fenced, abandoned", () => {
    expect(after("settle", "finish", "written").state).toBe("completed");
    expect(after("finish", "written").state).toBe("completed"); // a task's timeout while the handler runs
    expect(after("suspend", "parked").state).toBe("suspended");
    expect(after("suspend", "refused").state).toBe("fenced");
    expect(after("settle", "finish", "refused").state).toBe("fenced");
    expect(after("settle", "fence").state).toBe("fenced");
    expect(after("suspend", "abandon").state).toBe("abandoned");
    expect(after("settle", "finish", "abandon").state).toBe("abandoned");
  });

  it("is live until it ends", () => {
    const l = new ClaimLifecycle();
    expect(l.live).toBe(true);
    l.fire("settle");
    expect(l.live).toBe(true);
    l.fire("finish");
    expect(l.live).toBe(true);
    l.fire("written");
    expect(l.live).toBe(false);
  });

  it("refuses a second outcome, a suspension after settling, and any way back to running", () => {
    const done = after("settle", "finish", "written");
    for (const e of ALL_EVENTS) {
      expect(done.can(e)).toBe(false);
      expect(() => done.fire(e)).toThrow(IllegalClaimTransitionError);
    }
    expect(() => after("settle").fire("suspend")).toThrow(/cannot suspend while settling/);
    expect(() => after("suspend").fire("finish")).toThrow(IllegalClaimTransitionError);
    expect(() => after("settle").fire("written")).toThrow(/allowed from: finishing/);
  });

  it("lets a lost lease fence a claim that runs, settles or parks, but not one whose outcome is being written", () => {
    for (const path of [[], ["settle"], ["suspend"]] as ClaimEvent[][]) expect(after(...path).can("fence")).toBe(true);
    const finishing = after("settle", "finish");
    expect(finishing.can("fence")).toBe(false);
    expect(finishing.can("refused")).toBe(true);
  });

  it("names the event and the state in the error, with a stable code", () => {
    try {
      after("suspend", "parked").fire("parked");
      expect.unreachable();
    } catch (err) {
      const e = err as IllegalClaimTransitionError;
      expect(e).toBeInstanceOf(IllegalClaimTransitionError);
      expect(e.code).toBe("ILLEGAL_CLAIM_TRANSITION");
      expect([e.event, e.from]).toEqual<[ClaimEvent, ClaimState]>(["parked", "suspended"]);
    }
  });
});
