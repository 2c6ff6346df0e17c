import { describe, expect, it } from "vitest";
import {
  CHECK_BURST,
  checkSpacing,
  commandDemand,
  crashRetryDelay,
  fullCheckBudget,
  laneDemand,
  laneOfQueue,
  LineTail,
  quietExitDelay,
  takeCheck,
  unservedWorkflows,
} from "./policy.js";

describe("laneDemand", () => {
  it("splits queues into due lanes and the next future ready time", () => {
    const rows = [
      { queue: "default", readyAt: 100 },
      { queue: "email", readyAt: 500 },
      { queue: "gpu", readyAt: 300 },
    ];
    expect(laneDemand(rows, 200, null)).toEqual({ due: ["default"], nextAt: 300 });
    expect(laneDemand(rows, 1_000, null)).toEqual({ due: ["default", "email", "gpu"], nextAt: null });
    expect(laneDemand([], 0, null)).toEqual({ due: [], nextAt: null });
  });

  it("maps this server's local queues onto their group and ignores other servers'", () => {
    const rows = [
      { queue: "default@a", readyAt: 10 },
      { queue: "email@b", readyAt: 10 },
      { queue: "email", readyAt: 50 },
    ];
    expect(laneDemand(rows, 20, "a")).toEqual({ due: ["default"], nextAt: 50 });
    expect(laneOfQueue("email@b", "a")).toBeNull();
    expect(laneOfQueue("email@b", null)).toBe("email@b");
  });
});

describe("commandDemand", () => {
  const rows = [
    { queue: "go", readyAt: 100 },
    { queue: "default", readyAt: 500 },
  ];

  it("has work when any queue of the command's workflows is due, else says when one will be", () => {
    expect(commandDemand(rows, 200, null, null)).toEqual({ due: true, nextAt: 500 });
    expect(commandDemand(rows, 50, null, null)).toEqual({ due: false, nextAt: 100 });
    expect(commandDemand([], 50, null, null)).toEqual({ due: false, nextAt: null });
  });

  it("counts only the groups a command claims from, and this server's local queues", () => {
    expect(commandDemand(rows, 200, null, ["default"])).toEqual({ due: false, nextAt: 500 });
    expect(commandDemand(rows, 600, null, ["default"])).toEqual({ due: true, nextAt: null });
    const local = [
      { queue: "go@b", readyAt: 10 },
      { queue: "go@a", readyAt: 300 },
    ];
    expect(commandDemand(local, 200, "a", ["go"])).toEqual({ due: false, nextAt: 300 });
  });
});

describe("unservedWorkflows", () => {
  it("lists published workflows nobody here serves, removed ones aside", () => {
    const published = [
      { name: "ts", queue: "default", maxAttempts: 3, backoff: { base: 1, max: 2 } },
      { name: "go-a", queue: "go", maxAttempts: 3, backoff: { base: 1, max: 2 } },
      { name: "gone", queue: "go", maxAttempts: 3, backoff: { base: 1, max: 2 }, removedAt: 5 },
    ];
    expect(unservedWorkflows(published, new Set(["ts"]))).toEqual(["go-a"]);
    expect(unservedWorkflows(published, new Set(["ts", "go-a"]))).toEqual([]);
  });
});

describe("back-off", () => {
  it("a crashed lane waits its base, doubling, capped at 10 minutes", () => {
    expect([1, 2, 3].map((n) => crashRetryDelay(n, 30_000))).toEqual([30_000, 60_000, 120_000]);
    expect(crashRetryDelay(50, 30_000)).toBe(600_000);
    expect(crashRetryDelay(3, 1_000_000)).toBe(1_000_000);
  });

  it("a worker that found nothing to claim holds its lane back 1 s, doubling, at most 30 s", () => {
    expect([0, 1, 2, 3].map(quietExitDelay)).toEqual([0, 1_000, 2_000, 4_000]);
    expect(quietExitDelay(40)).toBe(30_000);
  });
});

describe("LineTail", () => {
  it("keeps the last lines without colour codes or blank lines", () => {
    const tail = new LineTail(2);
    for (const l of ["a", "", "\u001b[31mb\u001b[0m  ", "c"]) tail.push(l);
    expect(tail.get()).toEqual(["b", "c"]);
  });
});

describe("takeCheck", () => {
  it("lets two checks run back to back after a quiet period, then spaces them one per spacing", () => {
    let budget = fullCheckBudget(0);
    const take = (now: number) => {
      const r = takeCheck(budget, now, 25);
      budget = r.budget;
      return r.waitMs;
    };
    expect(take(1_000)).toBe(0);
    expect(take(1_001)).toBe(0);
    // The third within one spacing waits for the credit to refill.
    expect(take(1_002)).toBeCloseTo(23, 5);
    // Asked again before that one ran: it waits a whole spacing after it.
    expect(take(1_010)).toBeCloseTo(40, 5);
    // Steady wakes every millisecond: one check per 25 ms in the long run.
    let waited = 0;
    for (let t = 2_000; t < 2_100; t++) waited += take(t) === 0 ? 1 : 0;
    expect(waited).toBeLessThanOrEqual(CHECK_BURST + 4);
  });

  it("spaces checks by ten times the last check's duration, never under 25 ms", () => {
    expect(checkSpacing(0.4)).toBe(25);
    expect(checkSpacing(8)).toBe(80);
  });
});
