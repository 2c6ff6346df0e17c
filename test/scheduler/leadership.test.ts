/** `Scheduler.leadership()`: what `/api/ready` reads; unknown until the store answers and once its answer is stale. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Scheduler } from "../../src/scheduler/scheduler.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir } from "../helpers/tmp.js";

const OPTIONS = { tickMs: 1_000, retentionMs: null, retentionEveryMs: 60_000, retentionBatch: 500, leaderTtlMs: 5_000 };

describe("scheduler leadership state", () => {
  it("is unknown before the first tick, leader or standby after, unknown once older than the lease", async () => {
    const store = openSqliteStore({ path: join(tempDir(), "lead.db") });
    const a = new Scheduler(store, { ...OPTIONS, holder: "a" });
    const b = new Scheduler(store, { ...OPTIONS, holder: "b" });
    try {
      expect(a.leadership().state).toBe("unknown");
      await a.tick();
      await b.tick();
      const at = a.leadership().checkedAt!;
      expect(a.leadership().state).toBe("leader");
      expect(b.leadership().state).toBe("standby");
      expect(a.leadership(at + 5_000).state).toBe("leader");
      expect(a.leadership(at + 5_001).state).toBe("unknown");
    } finally {
      await a.stop();
      await b.stop();
      await store.close();
    }
  });
});
