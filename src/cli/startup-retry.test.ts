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
    // 250 + 500 + 1000 ms waited, then the 1,250 ms left: the last try is at the timeout.
    expect(calls).toBe(5);
  });

  it("waits for a Postgres server that cannot be reached yet, not for one that refuses the login", async () => {
    const unreachable = (code: string, reason: string) =>
      Object.assign(new Error(`cannot reach Postgres at postgres://db (${reason}): check …`), {
        code: "DATABASE_UNREACHABLE",
        target: "postgres://db",
        reason,
        cause: Object.assign(new Error(reason), { code }),
      });
    for (const [code, retried] of [
      ["ECONNREFUSED", true],
      ["EHOSTUNREACH", true],
      ["ENOTFOUND", true],
      ["57P03", true],
      ["28P01", false],
      ["3D000", false],
    ] as const) {
      const lines: string[] = [];
      let calls = 0;
      await retryStartup(
        "opening the database",
        async () => {
          if (++calls < 2) throw unreachable(code, `failure ${code}`);
        },
        { timeoutMs: 60_000, write: (l) => lines.push(l), command: "sluice server", ...clock() },
      ).catch(() => {});
      expect([code, calls]).toEqual([code, retried ? 2 : 1]);
      if (retried)
        expect(lines[0]).toBe(
          `sluice server: opening the database failed (cannot reach Postgres at postgres://db: failure ${code}); retrying in 0.25 s: waiting for the database for up to --startup-timeout (60 s left)\n`,
        );
    }
  });

  it("backs off 250 ms doubling up to 5 s", () => {
    expect([1, 2, 3, 4, 5, 6, 10].map(startupBackoff)).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000]);
  });
});
