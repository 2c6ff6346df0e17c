/**
 * Lanes on a shared Postgres database: every server supervises its own lanes, wakes on
 * other processes' commits (LISTEN/NOTIFY), and never runs two workers of one lane at a
 * time; each run is executed once. Real processes: two `sluice server`s, their lane
 * workers, the CLI.
 */
import { afterAll, describe, expect, it } from "vitest";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/store.js";
import { testDatabase } from "../helpers/postgres.js";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";
import { cli, LANE_WORKFLOWS } from "./fixtures.js";

const stores: PostgresStore[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

/** A server's lane events in order: "+pid" when it started a worker, "-pid" when that worker exited. */
function laneEvents(output: string, lane: string): string[] {
  const re = new RegExp(
    `lane ${lane}: (?:runnable work, starting worker pid (\\d+)|worker pid (\\d+) (?:exited|was killed))`,
    "g",
  );
  return [...output.matchAll(re)].map((m) => (m[1] ? `+${m[1]}` : `-${m[2]}`));
}

describe("lanes on Postgres with two servers", () => {
  it("each server starts at most one worker per lane at a time, and every run executes once", async () => {
    const url = await testDatabase("lanes");
    const root = makeProject(LANE_WORKFLOWS);
    const store = openPostgresStore(url);
    stores.push(store);
    const env = (name: string) => ({ SLUICE_DATABASE_URL: url, SLUICE_SERVER_NAME: name });
    const servers = ["a", "b"].map((n) =>
      spawnSluice(["server", "--port", "0", "--servers", "2", "--lane-idle", "1s"], root, env(n)),
    );
    await Promise.all(servers.map((s) => s.waitFor(/server \d+ ready/, 60_000)));

    const ids: string[] = [];
    for (let round = 0; round < 2; round++) {
      const batch = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          cli(["enqueue", "hello", JSON.stringify({ n: round * 10 + i })], root, env("a")),
        ),
      );
      for (const r of batch) {
        expect(r.code, r.out).toBe(0);
        ids.push(r.out.trim());
      }
      await eventually(async () => (await store.getRuns(ids)).every((r) => r.status === "succeeded"), 90_000, 100);
      // Let the lanes idle out before the next round, so it starts cold again.
      await Promise.all(
        servers.map((s) =>
          eventually(() => {
            const e = laneEvents(s.output(), "default");
            return e.length % 2 === 0;
          }, 30_000),
        ),
      );
    }
    const runs = await store.getRuns(ids);
    expect(runs).toHaveLength(8);
    expect(runs.every((r) => r.status === "succeeded" && r.attempt === 1)).toBe(true);
    let started = 0;
    for (const s of servers) {
      const events = laneEvents(s.output(), "default");
      // Strictly alternating start/exit of the same pid: never two workers of a lane at once.
      for (let i = 0; i < events.length; i += 2) {
        expect(events[i]).toMatch(/^\+\d+$/);
        expect(events[i + 1]).toBe(`-${events[i]!.slice(1)}`);
      }
      started += events.length / 2;
    }
    expect(started).toBeGreaterThanOrEqual(2);
    expect(started).toBeLessThanOrEqual(4);
  }, 240_000);
});
