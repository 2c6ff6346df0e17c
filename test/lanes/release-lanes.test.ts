/**
 * Scale-to-zero lanes on a `sluice server --release` (real processes, shared SQLite file): the
 * server, in an empty folder, starts one lane worker per worker group when work is runnable; the
 * lane worker runs the release's code (from the release tree the server wrote); after a new
 * deploy the lane's worker is retired (it drains) and new work gets a fresh worker on the new code.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject, writeFiles } from "../helpers/project.js";
import { eventually, tempDir } from "../helpers/tmp.js";
import { sluice, sluiceJson } from "../release/fixtures.js";
import { alive, startedWorkers } from "./fixtures.js";

/** Two worker groups: the default one and "email"; each answers its code version and process. */
const project = (answer: string) => ({
  "workflows/hello.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("hello", {
  handler: async (_p, ctx) => ctx.run("greet", () => ({ v: "${answer}", pid: process.pid, lane: process.env.SLUICE_LANE })),
});
`,
  "workflows/email.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow("send-email", {
  worker: "email",
  handler: async (_p, ctx) => ctx.run("send", () => ({ v: "${answer}", pid: process.pid, lane: process.env.SLUICE_LANE })),
});
`,
});

interface RunJson {
  id: string;
  status: string;
  result: { v: string; pid: number; lane: string } | null;
}

describe("sluice server --release: scale-to-zero lanes run the release", () => {
  it("starts a lane worker per group on the release's code, and fresh ones on the next release", async () => {
    const db = join(tempDir("sluice-release-lanes-db-"), "shared.db");
    const deployer = makeProject(project("v1"), "sluice-release-lanes-deployer-");
    const machine = tempDir("sluice-release-lanes-machine-");
    const first = await sluice(deployer, "deploy", "--db", db);
    expect(first.code, first.err).toBe(0);
    const server = spawnSluice(
      ["server", "--release", "--db", db, "--port", "0", "--lane-idle", "30s", "--scheduler-tick", "200ms"],
      machine,
    );
    await server.waitFor(/server \d+ ready/, 60_000);
    expect(server.output()).toMatch(/lanes: one worker process per worker group/);
    expect(startedWorkers(server.output(), "default")).toEqual([]);
    const run = async (workflow: string): Promise<RunJson> => {
      const { id } = await sluiceJson<{ id: string }>(machine, "enqueue", workflow, "{}", "--db", db, "--json");
      return eventually(async () => {
        const r = (await sluiceJson<RunJson[]>(machine, "runs", "--db", db, "--workflow", workflow, "--json")).find(
          (x) => x.id === id,
        );
        return r && (r.status === "succeeded" || r.status === "failed") ? r : null;
      }, 60_000);
    };

    const [a, b] = await Promise.all([run("hello"), run("send-email")]);
    expect(a.status).toBe("succeeded");
    expect(b.status).toBe("succeeded");
    expect(a.result).toMatchObject({ v: "v1", lane: "default" });
    expect(b.result).toMatchObject({ v: "v1", lane: "email" });
    const [defaultPid] = startedWorkers(server.output(), "default");
    const [emailPid] = startedWorkers(server.output(), "email");
    expect(a.result!.pid).toBe(defaultPid);
    expect(b.result!.pid).toBe(emailPid);
    expect(a.result!.pid).not.toBe(server.pid);

    writeFiles(deployer, project("v2"));
    const second = await sluice(deployer, "deploy", "--db", db);
    expect(second.code, second.err).toBe(0);
    await server.waitFor(/release 2 loaded \(was 1\)/, 20_000);
    // The lanes' workers of release 1 are retired: they drain and exit; new work starts fresh ones.
    await server.waitFor(new RegExp(`lane default: new code, worker pid ${defaultPid} drains`), 10_000);
    await server.waitFor(new RegExp(`lane default: retired worker pid ${defaultPid}`), 20_000);
    expect(alive(defaultPid!)).toBe(false);
    const c = await run("hello");
    expect(c.result).toMatchObject({ v: "v2", lane: "default" });
    const pids = startedWorkers(server.output(), "default");
    expect(pids).toHaveLength(2);
    expect(c.result!.pid).toBe(pids[1]);
    const d = await run("send-email");
    expect(d.result).toMatchObject({ v: "v2", lane: "email" });
    expect(d.result!.pid).not.toBe(emailPid);
    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 180_000);
});
