import { describe, expect, it } from "vitest";
import type { ApiRun, ApiRunDetail, ApiStep } from "../../../http/api-types";
import { buildTimeline, ticks } from "./timeline";

const T0 = Date.UTC(2026, 0, 1);
const at = (ms: number) => new Date(T0 + ms).toISOString();
const run = (over: Partial<ApiRun>): ApiRun =>
  ({
    id: "r",
    name: "wf",
    status: "succeeded",
    attempt: 1,
    createdAt: at(0),
    startedAt: at(10),
    finishedAt: at(1000),
    parentKey: null,
    ...over,
  }) as ApiRun;
const step = (over: Partial<ApiStep>): ApiStep =>
  ({
    key: "s",
    kind: "step",
    status: "done",
    attempts: 1,
    childId: null,
    wakeAt: null,
    position: 0,
    startedAt: at(20),
    finishedAt: at(40),
    ...over,
  }) as ApiStep;

describe("buildTimeline", () => {
  it("has the run, then steps in call order; tasks span their child's queue and run time", () => {
    const detail = {
      run: run({}),
      steps: [
        step({ key: "b", kind: "task", childId: "c1", position: 1, startedAt: at(50), finishedAt: at(400) }),
        step({ key: "a", position: 0 }),
        step({
          key: "nap",
          kind: "sleep",
          status: "done",
          position: 2,
          startedAt: at(400),
          finishedAt: at(900),
          attempts: 0,
        }),
      ],
      children: [
        run({
          id: "c1",
          name: "wf:b",
          createdAt: at(50),
          startedAt: at(80),
          finishedAt: at(390),
          attempt: 2,
          status: "succeeded",
        }),
      ],
    } as ApiRunDetail;
    const tl = buildTimeline(detail, T0 + 5000);
    expect(tl.rows.map((r) => [r.label, r.kind, r.status, r.start - T0, r.end - T0])).toEqual([
      ["wf", "run", "succeeded", 0, 1000],
      ["a", "step", "succeeded", 20, 40],
      ["b", "task", "succeeded", 50, 390],
      ["nap", "sleep", "succeeded", 400, 900],
    ]);
    expect(tl.rows[2]).toMatchObject({ queuedUntil: T0 + 80, attempts: 2 });
    expect([tl.start - T0, tl.end - T0]).toEqual([0, 1000]);
  });

  it("draws pending sleeps to their wake time and open waits to now; a cancelled run's open steps are cancelled", () => {
    const now = T0 + 2000;
    const detail = {
      run: run({ status: "waiting", finishedAt: null }),
      steps: [
        step({ key: "nap", kind: "sleep", status: "pending", wakeAt: at(9000), finishedAt: null }),
        step({ key: "ok?", kind: "approval", status: "pending", position: 1, finishedAt: null }),
      ],
      children: [],
    } as unknown as ApiRunDetail;
    const rows = buildTimeline(detail, now).rows;
    expect(rows.slice(1).map((r) => [r.status, r.end - T0, r.open])).toEqual([
      ["sleeping", 9000, true],
      ["waiting", 2000, true],
    ]);
    // An inline sleep stays pending in the checkpoint once over: past its wake time it is done.
    const later = buildTimeline(detail, T0 + 10_000).rows[1]!;
    expect([later.status, later.end - T0, later.open]).toEqual(["succeeded", 9000, false]);
    const cancelled = buildTimeline({ ...detail, run: run({ status: "cancelled", finishedAt: at(1500) }) }, now).rows;
    expect(cancelled.slice(1).map((r) => [r.status, r.end - T0])).toEqual([
      ["cancelled", 9000],
      ["cancelled", 1500],
    ]);
  });

  it("lists children that no step points at", () => {
    const detail = {
      run: run({}),
      steps: [],
      children: [run({ id: "c9", name: "wf:x", parentKey: "x" })],
    } as unknown as ApiRunDetail;
    expect(buildTimeline(detail, T0).rows.map((r) => r.label)).toEqual(["wf", "x"]);
  });
});

describe("ticks", () => {
  it("picks 1/2/5 steps", () => {
    expect(ticks(1000)).toEqual([0, 200, 400, 600, 800, 1000]);
    expect(ticks(9000, 4)).toEqual([0, 5000]);
    expect(ticks(30)).toEqual([0, 5, 10, 15, 20, 25, 30]);
  });
});
