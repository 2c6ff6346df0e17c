/**
 * Step timings as operators see them: a `ctx.run` body's real start and end, and an
 * inline sleep recorded done with its own start and end (not left pending).
 */
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";

const FILES = {
  "workflows/timed.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("timed", {
  handler: async (_p, ctx) => {
    await ctx.run("slow", () => new Promise((r) => setTimeout(() => r(1), 1000)));
    await ctx.sleep("nap", 400);
    await ctx.run("after", () => 2);
    return "ok";
  },
});`,
};

const ms = (iso: string | null) => (iso === null ? Number.NaN : Date.parse(iso));

describe("step timings", () => {
  it("shows a 1 s step as ≥ 1 s and an inline sleep as done with its real span, in `sluice show --json` and the API", async () => {
    const root = makeProject(FILES, "sluice-timings-");
    const dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root);
    await dev.waitFor(/UI: http:\/\/127\.0\.0\.1:\d+/, 30_000);
    const url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
    const created = (await (
      await fetch(`${url}/api/runs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ workflow: "timed" }),
      })
    ).json()) as { run: { id: string } };
    const id = created.run.id;
    const detail = await eventually(async () => {
      const d = (await (await fetch(`${url}/api/runs/${id}`)).json()) as any;
      return d.run.status === "succeeded" ? d : null;
    }, 20_000);
    const apiSlow = detail.steps.find((s: any) => s.key === "slow");
    expect(ms(apiSlow.finishedAt) - ms(apiSlow.startedAt)).toBeGreaterThanOrEqual(950);
    const apiNap = detail.steps.find((s: any) => s.key === "nap");
    expect(apiNap.status).toBe("done");
    expect(ms(apiNap.finishedAt) - ms(apiNap.startedAt)).toBeGreaterThanOrEqual(380);
    // The sleep ended before the next step, not at the run's end.
    const apiAfter = detail.steps.find((s: any) => s.key === "after");
    expect(ms(apiNap.finishedAt)).toBeLessThanOrEqual(ms(apiAfter.finishedAt));
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);

    const show = spawnSluice(["show", id, "--json"], root);
    expect(await show.exited).toBe(0);
    const shown = JSON.parse(show.output());
    const slow = shown.steps.find((s: any) => s.key === "slow");
    expect(ms(slow.finishedAt) - ms(slow.startedAt)).toBeGreaterThanOrEqual(950);
    expect(shown.steps.find((s: any) => s.key === "nap").status).toBe("done");

    const human = spawnSluice(["show", id], root);
    expect(await human.exited).toBe(0);
    expect(human.output()).toMatch(/✓ step\s+slow\s+1\s+1\.\d\ds/);
    expect(human.output()).toMatch(/✓ sleep\s+nap\s+.*0?\.?\d+(ms|s)/);
  }, 60_000);
});
