/**
 * A `--release` server keeps the retention of the `sluice.json` the release was deployed with, not the
 * machine folder's (an empty folder: it used to keep the default 184 days whatever was deployed,
 * `"forever"` included), and follows a new release's retention without a restart. Real binaries:
 * `sluice deploy` from the deployer's folder, `sluice server --release` in an empty machine folder, the
 * tests' own Postgres.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sql, testDatabase } from "../helpers/postgres.js";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { delay, eventually, tempDir } from "../helpers/tmp.js";

const url = await testDatabase("relret");

const HELLO = `import { defineWorkflow } from "sluice";
export const hello = defineWorkflow("hello", { handler: async () => "hi" });
`;

async function statusOf(id: string): Promise<string | null> {
  const rows = await sql<{ status: string }>(url, "SELECT status FROM runs WHERE id = $1", [id]);
  return rows[0]?.status ?? null;
}

async function deploy(root: string): Promise<void> {
  const p = spawnSluice(["deploy", "--db", url], root);
  expect(await p.exited, p.output()).toBe(0);
}

async function enqueue(machine: string, id: string): Promise<void> {
  const p = spawnSluice(["enqueue", "hello", "{}", "--id", id, "--db", url], machine);
  expect(await p.exited, p.output()).toBe(0);
  await eventually(async () => (await statusOf(id)) === "succeeded", 30_000);
}

describe("sluice server --release keeps the deployed retention", () => {
  it("applies release 1's retention (forever) at start and release 2's (1s) at the switch", async () => {
    const deployer = makeProject({
      "sluice.json": JSON.stringify({ retention: "forever" }),
      "workflows/hello.ts": HELLO,
    });
    await deploy(deployer);

    const machine = tempDir("sluice-retention-machine-");
    const server = spawnSluice(["server", "--release", "--db", url, "--port", "0"], machine);
    await server.waitFor(/server \d+ ready/, 60_000);
    // The machine's folder has no sluice.json: the release's forever is in force, not the default.
    expect(server.stdout()).toMatch(/release 1's sluice\.json: retention forever \(was 184d\)/);
    await enqueue(machine, "old");
    await delay(2_000);
    expect(await statusOf("old")).toBe("succeeded");

    // Release 2 says 1s: followed at the switch, without a restart; the finished run goes at the next tick.
    writeFileSync(join(deployer, "sluice.json"), JSON.stringify({ retention: "1s" }));
    await deploy(deployer);
    await server.waitFor(/release 2's sluice\.json: retention 1s \(was forever\)/, 30_000);
    await eventually(async () => (await statusOf("old")) === null, 20_000);

    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(server.stderr()).not.toMatch(/warning|error/);
  }, 150_000);
});
