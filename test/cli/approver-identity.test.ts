/**
 * `selfApproval: false` recognises the person who started a run whichever way they decide: the
 * CLI (`sluice approve`) and `sluice dev`'s API without auth (curl, the UI) name the local user
 * alike ($USER, else $LOGNAME, else the OS account), also where $USER is unset, so switching from
 * one to the other does not get past the check. Real processes: `sluice dev`, `sluice enqueue`,
 * `sluice approve`, HTTP with fetch.
 */
import { userInfo } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/store/sqlite/store.js";
import { makeProject } from "../helpers/project.js";
import { type SluiceProcess, spawnSluice } from "../helpers/processes.js";
import { eventually } from "../helpers/tmp.js";

const FILES = {
  "f/ops/gate.ts": `
    import { workflow, waitForApproval } from "windmill-client";
    export const main = workflow(async () => waitForApproval({ timeout: 600, selfApproval: false }));`,
};

/** No $USER nor $LOGNAME: a container, cron, a service. */
const NO_USER = { USER: undefined, LOGNAME: undefined };

async function done(p: SluiceProcess) {
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}

describe("the approver's identity with $USER unset, CLI and API alike", { timeout: 120_000 }, () => {
  let root: string;
  let dev: SluiceProcess;
  let url: string;
  const me = userInfo().username;
  const sluice = (...args: string[]) => done(spawnSluice(args, root, NO_USER));
  const run = async (id: string) => {
    const store = openSqliteStore({ path: join(root, ".sluice", "sluice.db") });
    try {
      return await store.getRun(id);
    } finally {
      await store.close();
    }
  };
  const waiting = (id: string) => eventually(async () => (await run(id))?.status === "waiting", 20_000, 100);
  const decide = async (id: string) => {
    const res = await fetch(`${url}/api/runs/${id}/approvals/waitForApproval`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ approve: true }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    root = makeProject(FILES);
    dev = spawnSluice(["dev", ".", "--port", "0", "--no-watch"], root, NO_USER, { shared: true });
    await dev.waitFor(/UI: (http:\/\/127\.0\.0\.1:\d+)/, 40_000);
    url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
  });
  afterAll(async () => {
    dev.proc.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
  });

  it("a run started with the CLI: its creator is refused by the CLI and by the API; someone else decides", async () => {
    expect((await sluice("enqueue", "f/ops/gate", "{}", "--id", "gate-cli")).code).toBe(0);
    await waiting("gate-cli");
    expect((await run("gate-cli"))!.createdBy).toBe(me);
    const cli = await sluice("approve", "gate-cli");
    expect(cli.code).toBe(1);
    expect(cli.err).toMatch(/cannot decide this approval \(selfApproval: false\)/);
    const api = await decide("gate-cli");
    expect(api.status).toBe(403);
    expect(api.body.error).toMatchObject({
      code: "APPROVAL_FORBIDDEN",
      message: expect.stringMatching(/selfApproval/),
    });
    expect((await run("gate-cli"))!.status).toBe("waiting");
    const other = await sluice("approve", "gate-cli", "--as", "bob");
    expect(other).toMatchObject({ code: 0, out: "approved gate-cli (waitForApproval) as bob\n" });
  });

  it("a run started through the API: its creator is refused by the CLI", async () => {
    const res = await fetch(`${url}/api/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ workflow: "f/ops/gate", payload: {}, id: "gate-api" }),
    });
    expect(res.status).toBe(201);
    await waiting("gate-api");
    expect((await run("gate-api"))!.createdBy).toBe(me);
    const cli = await sluice("approve", "gate-api");
    expect(cli.code).toBe(1);
    expect(cli.err).toMatch(/cannot decide this approval \(selfApproval: false\)/);
    expect((await decide("gate-api")).body.error.code).toBe("APPROVAL_FORBIDDEN");
  });
});
