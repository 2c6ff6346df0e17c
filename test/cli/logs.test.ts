/**
 * `sluice logs` as the real binary: lines of several runs after a worker ran them,
 * filtered by run (an unknown run is an error) and workflow, as text and JSON Lines, and `--follow` printing a line
 * printed after it started, then stopping on SIGTERM; `--follow --run` stopping once the run
 * has finished (at once for a finished run); an unknown `--workflow` is an error.
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
  "workflows/other.ts": `
    import { defineWorkflow } from "sluice";
    export default defineWorkflow("other", { handler: async () => { console.log("other speaks"); return 1; } });`,
  "workflows/slow.ts": `
    import { defineWorkflow } from "sluice";
    export default defineWorkflow("slow", { handler: async (_p, ctx) => {
      console.log("slow starts");
      await ctx.run("wait", () => new Promise((r) => setTimeout(r, 1500)));
      console.log("slow ends");
      return 1;
    } });`,
  "workflows/quiet.ts": `
    import { defineWorkflow } from "sluice";
    export default defineWorkflow("quiet", { handler: async () => 1 });`,
};

async function done(p: ReturnType<typeof spawnSluice>) {
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

async function runAll(root: string) {
  const w = await done(spawnSluice(["worker", "--exit-when-idle", "--idle", "300ms"], root));
  expect(w.code).toBe(0);
}

describe("sluice logs", { timeout: 120_000 }, () => {
  it("prints lines across runs, by run and by workflow, as text and JSON Lines", async () => {
    const root = makeProject(FILES);
    for (const [wf, payload, id] of [
      ["hello", '{"name": "ana"}', "h1"],
      ["hello", '{"name": "bo"}', "h2"],
      ["other", "{}", "o1"],
      ["quiet", "{}", "q1"],
    ] as const)
      expect((await done(spawnSluice(["enqueue", wf, payload, "--id", id], root))).code).toBe(0);
    await runAll(root);

    const all = await done(spawnSluice(["logs", "--since", "1d"], root));
    expect(all.code).toBe(0);
    expect(all.out).toMatch(/hello h1 \[greet\]: greeting ana\n/);
    expect(all.out).toMatch(/hello h2 \[greet\]: greeting bo\n/);
    expect(all.out).toMatch(/other o1: other speaks\n/);

    const json = await done(spawnSluice(["logs", "--workflow", "hello", "--json"], root));
    expect(json.code).toBe(0);
    const lines = json.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.runId, l.msg]).sort()).toEqual([
      ["h1", "greeting ana"],
      ["h2", "greeting bo"],
    ]);
    expect(lines.every((l) => l.workflow === "hello" && l.stepKey === "greet")).toBe(true);

    const one = await done(spawnSluice(["logs", "--run", "o1", "--json"], root));
    expect(
      one.out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).msg),
    ).toEqual(["other speaks"]);

    // A run without lines prints nothing; a run that does not exist is an error, as for show and cancel.
    expect(await done(spawnSluice(["logs", "--run", "q1"], root))).toEqual({ code: 0, out: "", err: "" });
    const missing = await done(spawnSluice(["logs", "--run", "nosuch"], root));
    expect(missing).toMatchObject({ code: 1, out: "" });
    expect(missing.err).toMatch(/^sluice: no run with id "nosuch": check the id with `sluice runs`/);

    // A workflow nobody registered (a typo) is an error naming the known ones, not an empty answer.
    for (const extra of [[], ["--follow"]]) {
      const typo = await done(spawnSluice(["logs", "--workflow", "helo", ...extra], root));
      expect(typo).toMatchObject({ code: 1, out: "" });
      expect(typo.err).toMatch(/^sluice: unknown workflow "helo"; known workflows: .*hello/);
    }
    // A known one without lines is not.
    expect(await done(spawnSluice(["logs", "--workflow", "quiet"], root))).toEqual({ code: 0, out: "", err: "" });

    const bad = await done(spawnSluice(["logs", "--since", "yesterday"], root));
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/--since "yesterday" is not a duration/);
  });

  it("--follow prints lines printed after it started, and stops on SIGTERM", async () => {
    const root = makeProject(FILES);
    expect((await done(spawnSluice(["enqueue", "hello", '{"name": "early"}', "--id", "e1"], root))).code).toBe(0);
    await runAll(root);
    const follow = spawnSluice(["logs", "--follow", "--workflow", "hello"], root);
    const started = Date.now();
    await follow.waitFor(/greeting early/, 20_000);
    expect((await done(spawnSluice(["enqueue", "hello", '{"name": "late"}', "--id", "l1"], root))).code).toBe(0);
    await runAll(root);
    await follow.waitFor(/hello l1 \[greet\]: greeting late/, 20_000);
    // More than 11 polls (500 ms apart): each used to leave a listener on the interrupt signal,
    // and Node warned of a leak on stderr at the eleventh.
    await new Promise((r) => setTimeout(r, Math.max(0, 6_500 - (Date.now() - started))));
    follow.proc.kill("SIGTERM");
    expect(await follow.exited).toBe(0);
    expect(follow.stdout().match(/greeting early/g)).toHaveLength(1);
    expect(follow.stderr()).toBe("");
  });

  it("--follow --run stops once the run has finished, with every line it printed", async () => {
    const root = makeProject(FILES);
    expect((await done(spawnSluice(["enqueue", "slow", "{}", "--id", "s1"], root))).code).toBe(0);
    // Started before the run is claimed: it prints the lines as they come, then ends by itself.
    const follow = spawnSluice(["logs", "--follow", "--run", "s1"], root);
    await new Promise((r) => setTimeout(r, 500));
    await runAll(root);
    expect(await follow.exited).toBe(0);
    expect(follow.stdout()).toMatch(/slow s1: slow starts\n.*slow s1: slow ends\n$/s);
    // A finished run: its lines, then done at once.
    const again = await done(spawnSluice(["logs", "--follow", "--run", "s1", "--json"], root));
    expect(again.code).toBe(0);
    expect(
      again.out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).msg),
    ).toEqual(["slow starts", "slow ends"]);
  });
});
