/**
 * A worker paused past its lease (SIGSTOP) whose run was taken over by another worker:
 * after SIGCONT its step keeps printing, and those lines are refused like its other
 * writes. Real processes, real signals, a real SQLite file.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import type { Store } from "../../src/store/types.js";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";

const CHATTY = `
import { appendFileSync } from "node:fs";
import { defineWorkflow } from "sluice";
export default defineWorkflow<{ dir: string }>("chatty", {
  retries: 5,
  backoff: { base: 10, max: 10 },
  handler: async (p, ctx) => ctx.run("talk", async () => {
    console.log("before the pause, attempt " + ctx.attempt);
    if (ctx.attempt === 1) {
      appendFileSync(p.dir + "/markers.log", "started\\n");
      await new Promise((r) => setTimeout(r, 3000));
      console.log("after the pause, attempt " + ctx.attempt);
      appendFileSync(p.dir + "/markers.log", "finished\\n");
    }
    return ctx.attempt;
  }),
});
`;

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
});

describe("log lines of a fenced attempt", () => {
  it("are dropped once another attempt owns the run", async () => {
    const root = makeProject({ "workflows/chatty.ts": CHATTY });
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    stores.push(store);
    const markers = () =>
      existsSync(join(root, "markers.log")) ? readFileSync(join(root, "markers.log"), "utf8") : "";
    const enq = spawnSluice(["enqueue", "chatty", JSON.stringify({ dir: root }), "--id", "chat"], root);
    expect(await enq.exited).toBe(0);
    const a = spawnSluice(["worker", "--lease", "1s"], root);
    await eventually(() => markers().includes("started"), 20_000);
    // Written while the lease was held (a line still queued when the lease is lost is dropped too).
    await eventually(
      async () => (await store.getLogs("chat")).some((l) => l.message === "before the pause, attempt 1"),
      2_000,
    );
    a.proc.kill("SIGSTOP");
    const b = spawnSluice(["worker", "--lease", "1s"], root);
    await eventually(async () => (await store.getRun("chat"))?.status === "succeeded", 20_000);
    a.proc.kill("SIGCONT");
    await eventually(() => markers().includes("finished"), 20_000);
    await a.waitFor(/lost the lease on run chat/, 10_000);
    await new Promise((r) => setTimeout(r, 500));
    const logs = (await store.getLogs("chat")).map((l) => l.message);
    expect(logs).toContain("before the pause, attempt 1");
    expect(logs).toContain("before the pause, attempt 2");
    // Printed by the zombie after its lease was gone: refused, as its checkpoint was.
    expect(logs).not.toContain("after the pause, attempt 1");
    expect((await store.getRun("chat"))!).toMatchObject({ status: "succeeded", result: "2" });
    a.proc.kill("SIGTERM");
    b.proc.kill("SIGTERM");
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
  }, 60_000);
});
