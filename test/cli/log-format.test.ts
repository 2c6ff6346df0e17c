/**
 * `--log-format json` of the real binary: `sluice worker` writes one JSON object per line
 * on standard output, run lines carrying the run id, workflow and attempt and log lines
 * the step key; a bad format is refused with one clear line and a non-zero exit.
 */
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";

const FILES = {
  "workflows/hello.ts": `
    import { defineWorkflow } from "sluice";
    export default defineWorkflow<{ name: string }>("hello", {
      handler: async (p, ctx) => ctx.run("greet", () => { console.log("greeting " + p.name); return "hello " + p.name; }),
    });`,
};

async function done(p: ReturnType<typeof spawnSluice>) {
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

describe("--log-format json", { timeout: 120_000 }, () => {
  it("sluice worker: every stdout line is a JSON object; run and log lines carry the ids", async () => {
    const root = makeProject(FILES);
    expect((await done(spawnSluice(["enqueue", "hello", '{"name": "ana"}', "--id", "j1"], root))).code).toBe(0);
    const w = await done(spawnSluice(["worker", "--exit-when-idle", "--idle", "300ms", "--log-format", "json"], root));
    expect(w.code).toBe(0);
    const lines = w.out.split("\n").filter((l) => l !== "");
    const events = lines.map((l) => JSON.parse(l) as Record<string, unknown>); // throws on any non-JSON line
    for (const e of events) {
      expect(typeof e.ts).toBe("string");
      expect(Number.isNaN(Date.parse(e.ts as string))).toBe(false);
      expect(["debug", "info", "warn", "error"]).toContain(e.level);
      expect(typeof e.msg).toBe("string");
    }
    expect(events.find((e) => e.event === "run.started")).toMatchObject({ runId: "j1", workflow: "hello", attempt: 1 });
    expect(events.find((e) => e.event === "log")).toMatchObject({
      runId: "j1",
      workflow: "hello",
      stepKey: "greet",
      msg: "greeting ana",
    });
    expect(events.find((e) => e.event === "run.succeeded")).toMatchObject({ runId: "j1", status: "succeeded" });
    expect(events.some((e) => /worker \S+ ready/.test(e.msg as string))).toBe(true);
  });

  it("refuses an unknown format with one clear line", async () => {
    const root = makeProject(FILES);
    const w = await done(spawnSluice(["worker", "--log-format", "yaml"], root));
    expect(w.code).not.toBe(0);
    expect(w.err).toMatch(/--log-format "yaml" is not a format: use text or json/);
  });
});
