import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bufferIO } from "../../src/cli/io.js";
import { run } from "../../src/cli/run.js";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { makeProject } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";

const WORKFLOWS = {
  "workflows/greet.ts": `
    import { defineWorkflow } from "tako.sh";
    export default defineWorkflow<{ name: string }>("greet", {
      handler: async (p, ctx) => {
        const text = await ctx.run("compose", () => "hello " + p.name);
        console.log(text);
        return { text };
      },
    });`,
  "workflows/waiter.ts": `
    import { defineWorkflow } from "tako.sh";
    export default defineWorkflow<{ id: string }>("waiter", {
      handler: async (p, ctx) => ctx.waitFor("go:" + p.id),
    });`,
};

async function cli(root: string, ...argv: string[]) {
  const io = bufferIO(root);
  const code = await run(argv, io);
  return { code, out: io.out.join(""), err: io.err.join("") };
}

describe("sluice CLI", () => {
  it("enqueues, works until idle, lists and shows runs, with --json everywhere", async () => {
    const root = makeProject(WORKFLOWS);
    const enq = await cli(root, "enqueue", "greet", '{"name":"ana"}', "--id", "greet:ana", "--json");
    expect(enq.code).toBe(0);
    expect(JSON.parse(enq.out)).toEqual({ id: "greet:ana", deduplicated: false, workflow: "greet" });
    const again = await cli(root, "enqueue", "greet", '{"name":"ana"}', "--id", "greet:ana");
    expect(again.out).toMatch(/greet:ana\s+\(existing run: same id and payload\)/);

    const worker = await cli(root, "worker", "--exit-when-idle", "--idle", "200ms");
    expect(worker.code).toBe(0);
    expect(worker.out).toMatch(/worker .* ready: 2 workflow\(s\) \[greet, waiter\]/);
    expect(worker.out).toMatch(/✓ greet greet:ana succeeded in .* → \{"text":"hello ana"\}/);
    expect(worker.out).toMatch(/idle: exiting/);

    const runs = await cli(root, "runs", "--json");
    expect(JSON.parse(runs.out)).toMatchObject([
      { id: "greet:ana", status: "succeeded", result: { text: "hello ana" } },
    ]);
    const table = await cli(root, "runs", "--status", "succeeded");
    expect(table.out).toMatch(/ID\s+WORKFLOW\s+STATUS/);
    expect(table.out).toMatch(/greet:ana\s+greet\s+✓ succeeded\s+1\/3/);

    const show = await cli(root, "show", "greet:ana", "--json");
    const shown = JSON.parse(show.out);
    expect(shown.steps).toMatchObject([{ key: "compose", kind: "step", status: "done", value: "hello ana" }]);
    expect(shown.logs).toMatchObject([{ level: "info", message: "hello ana", step: null }]);
    const text = await cli(root, "show", "greet:ana");
    expect(text.out).toMatch(/status\s+✓ succeeded/);
    expect(text.out).toMatch(/✓ step\s+compose\s+"hello ana"/);
  });

  it("signals waiting runs and cancels runs", async () => {
    const root = makeProject(WORKFLOWS);
    await cli(root, "enqueue", "waiter", '{"id":"1"}', "--id", "w1");
    await cli(root, "enqueue", "waiter", '{"id":"2"}', "--id", "w2");
    const controller = new AbortController();
    const io = bufferIO(root, controller.signal);
    const worker = run(["worker", "--quiet"], io);
    const db = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    await eventually(
      async () => (await db.getRun("w2"))?.status === "waiting" && (await db.getRun("w1"))?.status === "waiting",
    );
    const sig = await cli(root, "signal", "go:1", '{"ok":true}');
    expect(sig.out).toBe('woke 1 run waiting on "go:1"\n');
    expect((await cli(root, "signal", "go:1", "--json")).out).toMatch(/"woken": 0/);
    await eventually(async () => (await db.getRun("w1"))?.status === "succeeded");
    expect((await db.getRun("w1"))!.result).toBe('{"ok":true}');
    expect((await cli(root, "cancel", "w2", "--reason", "no longer needed")).out).toBe("cancelled w2\n");
    expect((await cli(root, "cancel", "w2")).out).toMatch(/already finished \(cancelled\)/);
    expect((await db.getRun("w2"))!.error!.message).toBe("cancelled: no longer needed");
    controller.abort();
    expect(await worker).toBe(0);
    await db.close();
  });

  it("refuses bad input with one clear line, a non-zero exit and nothing written", async () => {
    const root = makeProject(WORKFLOWS);
    const cases: Array<[string[], RegExp]> = [
      [["enqueue", "nope", "{}"], /unknown workflow "nope"; known workflows: greet, waiter/],
      [["enqueue", "greet", "{name: ana}"], /payload is not valid JSON/],
      [["enqueue", "greet", "{}", "--run-at", "soonish"], /--run-at "soonish" is not a time/],
      [["enqueue", "greet", "{}", "--wait", "--timeout", "5 parsecs"], /--timeout "5 parsecs" is not a duration/],
      [["enqueue", "greet", "{}", "--id", ""], /run id must be 1–255 bytes/],
      [["enqueue", "greet", JSON.stringify({ big: "x".repeat(1024 * 1024) })], /over the 1048576-byte limit/],
      [["show", "no-such-run"], /no run with id "no-such-run"/],
      [["cancel", "no-such-run"], /no run with id "no-such-run"/],
      [["runs", "--status", "done"], /unknown status "done"/],
      [["runs", "--limit", "many"], /--limit must be a whole number/],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(root, ...argv);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(r.err).toMatch(message);
      expect(r.err.trim().split("\n")).toHaveLength(1);
    }
    const unknownCommand = await cli(root, "frobnicate");
    expect(unknownCommand.code).toBe(2);
    expect(unknownCommand.err).toMatch(/unknown command 'frobnicate'/);
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    expect(await store.countRuns({})).toBe(0);
    await store.close();
  });

  it("dev loads the project, enqueues sluice.json's demo runs and shows them finishing", async () => {
    const root = makeProject({
      ...WORKFLOWS,
      "sluice.json": JSON.stringify({ dev: { enqueue: [{ workflow: "greet", payload: { name: "dev" } }] } }),
    });
    const controller = new AbortController();
    const io = bufferIO(root, controller.signal);
    const dev = run(["dev", "."], io);
    await eventually(() => io.out.join("").includes("succeeded"), 10_000);
    controller.abort();
    expect(await dev).toBe(0);
    const out = io.out.join("");
    expect(out).toMatch(/loaded workflows\/greet\.ts: greet/);
    expect(out).toMatch(/enqueued greet /);
    expect(out).toMatch(/│ greet .*: hello dev/);
    expect(out).toMatch(/✓ greet .* succeeded in .* → \{"text":"hello dev"\}/);
    expect(out).toMatch(/stopped\n$/);
    expect(existsSync(join(root, ".sluice", "sluice.db"))).toBe(true);
  });
});
