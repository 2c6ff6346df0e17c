/**
 * `sluice enqueue --wait` and JSON values too large for the command line, as users run
 * them: the real binary in a child process, a separate `sluice dev` (or `sluice worker`)
 * process doing the work.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { makeProject } from "../helpers/project.js";
import { eventually } from "../helpers/tmp.js";
import { finished, type SluiceProcess, spawnSluice, startDev, stopDev } from "../helpers/processes.js";

const FILES = {
  "workflows/echo.ts": `
    import { defineWorkflow } from "sluice";
    export default defineWorkflow<Record<string, unknown>>("echo", {
      handler: async (p, ctx) => ctx.run("measure", () => ({ keys: Object.keys(p), bytes: JSON.stringify(p).length })),
    });`,
  "workflows/boom.ts": `
    import { defineWorkflow } from "sluice";
    export default defineWorkflow("boom", { handler: async (_p, ctx) => ctx.fail(new Error("boom: the disk is full")) });`,
  "workflows/waiter.ts": `
    import { defineWorkflow } from "sluice";
    export default defineWorkflow("waiter", {
      handler: async (_p, ctx) => {
        const got = await ctx.waitFor<Record<string, string>>("big-event");
        return { bytes: JSON.stringify(got).length };
      },
    });`,
  "f/ops/gate.ts": `
    import { workflow, waitForApproval } from "windmill-client";
    export const main = workflow(async () => {
      const a = await waitForApproval({ timeout: 600, form: { notes: { type: "string" } } });
      return { approved: a.approved, bytes: JSON.stringify(a.value).length };
    });`,
};

/** A JSON object of about `kib` KiB: over the ~128 KiB a single command-line argument may hold. */
const bigObject = (kib: number) => ({ blob: "x".repeat(kib * 1024) });
const sluice = (root: string, args: string[], env: Record<string, string> = {}, stdin?: string) =>
  spawnSluice(args, root, env, { stdin });

// Each test spawns several processes; on a loaded machine one costs seconds.
describe("enqueue --wait against a separate sluice dev", { timeout: 120_000 }, () => {
  let root: string;
  let dev: SluiceProcess;
  beforeAll(async () => ({ root, dev } = await startDev(FILES)));
  afterAll(() => stopDev(dev));

  it("blocks until the run succeeds and prints its result; --json prints the run", async () => {
    const r = await finished(sluice(root, ["enqueue", "echo", '{"a":1}', "--wait"]));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ keys: ["a"], bytes: 7 });
    expect(r.err).toMatch(/^enqueued \S+; waiting for it to finish…\n$/);
    const j = await finished(sluice(root, ["enqueue", "echo", '{"b":2}', "--wait", "--json", "--id", "echo-json"]));
    expect(j.code).toBe(0);
    expect(JSON.parse(j.out)).toMatchObject({
      id: "echo-json",
      workflow: "echo",
      status: "succeeded",
      result: { keys: ["b"], bytes: 7 },
    });
    expect(j.err).toBe("");
  });

  it("exits 1 with the run's error when the run fails, with or without --json", async () => {
    const r = await finished(sluice(root, ["enqueue", "boom", "--wait", "--id", "boom-1"]));
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toMatch(/run boom-1 failed: boom: the disk is full\n$/);
    const j = await finished(sluice(root, ["enqueue", "boom", "--wait", "--json", "--id", "boom-2"]));
    expect(j.code).toBe(1);
    expect(JSON.parse(j.out)).toMatchObject({
      id: "boom-2",
      status: "failed",
      error: { message: "boom: the disk is full" },
    });
  });

  it("a cancelled run's reason reads once: in enqueue --wait, the dev log and sluice show", async () => {
    const waiting = sluice(root, ["enqueue", "waiter", "--wait", "--id", "cancel-me"]);
    await eventuallyStatus(root, "cancel-me", "waiting");
    // Through dev's API, so that dev's own engine cancels it and prints the line.
    const api = /UI: (http:\/\/\S+)/.exec(dev.output())![1]!;
    const res = await fetch(`${api}/api/runs/cancel-me/cancel`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ reason: "not needed" }),
    });
    expect(res.status, await res.text()).toBe(200);
    expect(await finished(waiting)).toMatchObject({
      code: 1,
      out: "",
      err: expect.stringMatching(/\nrun cancel-me cancelled: not needed\n$/),
    });
    await dev.waitFor(/⊘ waiter cancel-me cancelled: not needed\n/);
    const show = await finished(sluice(root, ["show", "cancel-me"]));
    expect(show.out).toMatch(/^error {5}Cancelled \[CANCELLED\]: not needed$/m);
    expect(dev.output() + show.out).not.toMatch(/cancelled: cancelled/i);
    // No reason (the CLI's cancel): nothing after the status.
    const bare = sluice(root, ["enqueue", "waiter", "--wait", "--id", "cancel-bare"]);
    await eventuallyStatus(root, "cancel-bare", "waiting");
    expect(await finished(sluice(root, ["cancel", "cancel-bare"]))).toMatchObject({ code: 0 });
    expect(await finished(bare)).toMatchObject({
      code: 1,
      err: expect.stringMatching(/\nrun cancel-bare cancelled\n$/),
    });
    expect((await finished(sluice(root, ["show", "cancel-bare"]))).out).toMatch(/^error {5}Cancelled \[CANCELLED\]$/m);
  });

  it("takes a payload of more than 200 KiB from a file and from standard input", async () => {
    const payload = JSON.stringify(bigObject(250));
    expect(payload.length).toBeGreaterThan(200 * 1024);
    writeFileSync(join(root, "big.json"), payload);
    const file = await finished(sluice(root, ["enqueue", "echo", "--payload-file", "big.json", "--wait"]));
    expect(file.code).toBe(0);
    expect(JSON.parse(file.out)).toEqual({ keys: ["blob"], bytes: payload.length });
    const stdin = await finished(
      sluice(root, ["enqueue", "echo", "--payload-file", "-", "--wait", "--json"], {}, payload),
    );
    expect(stdin.code).toBe(0);
    expect(JSON.parse(stdin.out)).toMatchObject({ status: "succeeded", result: { bytes: payload.length } });
    const both = await finished(sluice(root, ["enqueue", "echo", "{}", "--payload-file", "big.json"]));
    expect(both.code).toBe(1);
    expect(both.err).toBe("sluice: give the payload either inline or with --payload-file, not both\n");
    const missing = await finished(sluice(root, ["enqueue", "echo", "--payload-file", "nope.json"]));
    expect(missing.code).toBe(1);
    expect(missing.err).toBe("sluice: cannot read --payload-file nope.json: no such file\n");
  });

  it("signal --payload-file and approve --value-file carry more than 200 KiB", async () => {
    const payload = JSON.stringify(bigObject(220));
    writeFileSync(join(root, "event.json"), payload);
    const waiter = sluice(root, ["enqueue", "waiter", "--wait", "--json", "--id", "big-waiter"]);
    await eventuallyStatus(root, "big-waiter", "waiting");
    const sig = await finished(sluice(root, ["signal", "big-event", "--payload-file", "event.json"]));
    expect(sig).toMatchObject({ code: 0, out: 'woke 1 run waiting on "big-event"\n', err: "" });
    const w = await finished(waiter);
    expect(w.code).toBe(0);
    expect(JSON.parse(w.out)).toMatchObject({ status: "succeeded", result: { bytes: payload.length } });

    const gate = await finished(sluice(root, ["enqueue", "f/ops/gate", "{}", "--id", "big-gate"]));
    expect(gate.code).toBe(0);
    await eventuallyStatus(root, "big-gate", "waiting");
    const value = JSON.stringify({ notes: "n".repeat(210 * 1024) });
    const ok = await finished(sluice(root, ["approve", "big-gate", "--as", "bob", "--value-file", "-"], {}, value));
    expect(ok).toMatchObject({ code: 0, out: "approved big-gate (waitForApproval) as bob\n", err: "" });
    const result = await finished(sluice(root, ["enqueue", "f/ops/gate", "{}", "--id", "big-gate", "--wait"]));
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toEqual({ approved: true, bytes: value.length });
  });
});

describe("enqueue --wait with no worker", { timeout: 120_000 }, () => {
  it("says no worker has claimed the run, and --timeout gives up with exit 124 while the run stays queued", async () => {
    const root = makeProject(FILES);
    const started = Date.now();
    const r = await finished(
      sluice(root, ["enqueue", "echo", "{}", "--wait", "--timeout", "2s", "--id", "lonely"], {
        SLUICE_WAIT_HINT_AFTER: "300ms",
      }),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(r.code).toBe(124);
    expect(r.out).toBe("");
    expect(r.err).toMatch(
      /no worker has claimed run lonely yet: start `sluice dev` or `sluice worker` on this project's database \(.*sluice\.db\); still waiting/,
    );
    expect(r.err).toMatch(
      /sluice: run lonely did not finish within 2000 ms; it keeps running, check it later with `sluice show lonely`\n$/,
    );
    const j = await finished(
      sluice(root, ["enqueue", "echo", "{}", "--wait", "--timeout", "300ms", "--json", "--id", "lonely"]),
    );
    expect(j.code).toBe(124);
    expect(JSON.parse(j.out)).toMatchObject({ id: "lonely", status: "pending" });
  });

  it("Ctrl-C stops waiting with exit 130 and leaves the run queued; --timeout without --wait or of 0 is refused", async () => {
    const root = makeProject(FILES);
    const waiting = sluice(root, ["enqueue", "echo", "{}", "--wait", "--id", "interrupted"]);
    await waiting.waitFor(/enqueued interrupted; waiting/);
    waiting.proc.kill("SIGINT");
    const r = await finished(waiting);
    expect(r.code).toBe(130);
    expect(r.err).toMatch(
      /sluice: stopped waiting; run interrupted keeps going \(pending\): check it with `sluice show interrupted`\n$/,
    );
    await eventuallyStatus(root, "interrupted", "pending");
    const noWait = await finished(sluice(root, ["enqueue", "echo", "{}", "--timeout", "5s"]));
    expect(noWait).toEqual({
      code: 1,
      out: "",
      err: "sluice: --timeout only applies with --wait: add --wait, or drop --timeout\n",
    });
    for (const zero of ["0", "0s", "-1s"]) {
      const r = await finished(
        sluice(root, ["enqueue", "echo", "{}", "--wait", "--timeout", zero, "--id", `zero-${zero}`]),
      );
      expect(r.code, r.err).toBe(1);
      expect(r.out).toBe("");
      expect(r.err).toMatch(/^sluice: --timeout "[-0s1]+" (gives the run no time|is not a duration)/);
    }
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    try {
      expect(await store.getRun("zero-0")).toBeNull(); // refused before anything was enqueued
    } finally {
      await store.close();
    }
  });

  it("keeps waiting without --timeout until a worker shows up and finishes the run", async () => {
    const root = makeProject(FILES);
    const waiting = sluice(root, ["enqueue", "echo", '{"late":true}', "--wait"], { SLUICE_WAIT_HINT_AFTER: "200ms" });
    await waiting.waitFor(/no worker has claimed run \S+ yet/);
    const worker = sluice(root, ["worker", "--exit-when-idle", "--idle", "500ms", "--quiet"]);
    const r = await finished(waiting);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ keys: ["late"], bytes: 13 });
    expect(await worker.exited).toBe(0);
  });
});

/** Polls the project's database (read-only use of the store; the processes do the work). */
async function eventuallyStatus(root: string, id: string, status: string): Promise<void> {
  const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
  try {
    await eventually(async () => (await store.getRun(id))?.status === status, 20_000, 50);
  } finally {
    await store.close();
  }
}
