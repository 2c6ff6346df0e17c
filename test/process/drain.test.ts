/** Graceful drain on SIGTERM and worker groups, with real worker processes. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";

const FILES = {
  "workflows/slow.ts": `
    import { appendFileSync } from "node:fs";
    import { defineWorkflow } from "tako.sh";
    export default defineWorkflow<{ dir: string }>("slow", {
      handler: async (p, ctx) => {
        await ctx.run("work", async () => {
          appendFileSync(p.dir + "/slow.log", "started\\n");
          await new Promise((r) => setTimeout(r, 1200));
          appendFileSync(p.dir + "/slow.log", "finished\\n");
        });
        return "done";
      },
    });`,
  "workflows/email.ts": `
    import { defineWorkflow } from "tako.sh";
    export default defineWorkflow("send-email", { worker: "email", handler: async () => "sent" });`,
};

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

describe("workers", () => {
  it("SIGTERM drains: a run in the middle of a step finishes before the worker exits", async () => {
    const root = makeProject(FILES);
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    stores.push(store);
    const log = () =>
      existsSync(join(root, "slow.log")) ? readFileSync(join(root, "slow.log"), "utf8").trim().split("\n") : [];
    expect(await spawnSluice(["enqueue", "slow", JSON.stringify({ dir: root }), "--id", "slow-1"], root).exited).toBe(
      0,
    );
    const w = spawnSluice(["worker"], root);
    await eventually(() => log().includes("started"));
    w.proc.kill("SIGTERM");
    expect(await w.exited).toBe(0);
    expect(w.output()).toMatch(/draining…[\s\S]*✓ slow slow-1 succeeded[\s\S]*worker stopped after 1 claim/);
    expect(log()).toEqual(["started", "finished"]);
    expect((await store.getRun("slow-1"))!.status).toBe("succeeded");
  });

  it("a workflow with worker: 'email' is only claimed by a worker of that group", async () => {
    const root = makeProject(FILES);
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    stores.push(store);
    expect(await spawnSluice(["enqueue", "send-email", "{}", "--id", "mail-1"], root).exited).toBe(0);
    const other = spawnSluice(["worker", "--group", "default", "--exit-when-idle", "--idle", "300ms"], root);
    expect(await other.exited).toBe(0);
    expect((await store.getRun("mail-1"))!.status).toBe("pending");
    const email = spawnSluice(["worker", "--group", "email", "--exit-when-idle", "--idle", "300ms"], root);
    expect(await email.exited).toBe(0);
    expect((await store.getRun("mail-1"))!).toMatchObject({ status: "succeeded", queue: "email", result: '"sent"' });
  });
});
