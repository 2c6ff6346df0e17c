import { describe, expect, it } from "vitest";
import { retryStartup, startupBackoff } from "./startup-retry.js";

const busy = () => Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });

/** A fake clock that sleeping advances. */
function clock() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms) };
}

describe("retryStartup", () => {
  it("retries a transient storage failure, says so, and returns once storage works", async () => {
    const lines: string[] = [];
    let calls = 0;
    const value = await retryStartup(
      "publishing the workflows",
      async () => {
        if (++calls < 3) throw busy();
        return "ok";
      },
      { timeoutMs: 60_000, write: (l) => lines.push(l), ...clock() },
    );
    expect(value).toBe("ok");
    expect(calls).toBe(3);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /publishing the workflows failed \(.*SQLITE_BUSY.*another process holds the database lock\); retrying in 0\.25 s/,
    );
  });

  it("rethrows at once what retrying cannot fix", async () => {
    let calls = 0;
    const bad = new Error("schema too new");
    await expect(
      retryStartup(
        "starting",
        async () => {
          calls++;
          throw bad;
        },
        { timeoutMs: 60_000, write: () => {}, ...clock() },
      ),
    ).rejects.toBe(bad);
    expect(calls).toBe(1);
  });

  it("gives up with the last failure once the start-up timeout would pass", async () => {
    let calls = 0;
    await expect(
      retryStartup(
        "starting",
        async () => {
          calls++;
          throw busy();
        },
        { timeoutMs: 3_000, write: () => {}, ...clock() },
      ),
    ).rejects.toMatchObject({ code: "SQLITE_BUSY" });
    // 250 + 500 + 1000 ms waited; the next 2 s wait would pass 3 s.
    expect(calls).toBe(4);
  });

  it("backs off 250 ms doubling up to 5 s", () => {
    expect([1, 2, 3, 4, 5, 6, 10].map(startupBackoff)).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000]);
  });
});
