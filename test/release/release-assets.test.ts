/**
 * A `sluice worker --release` keeps pipeline assets where the deployed `sluice.json` says (`"assets"`),
 * not in a private folder of its machine: it used to take the machine folder's setting (none: the
 * default `.sluice/s3` under its release tree), so a step it ran wrote beside the shared store the
 * project named. A later release that changes `"assets"` is said to need a restart. Real binaries:
 * `sluice deploy`, `sluice worker --release` in an empty machine folder, the tests' own Postgres.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sql, testDatabase } from "../helpers/postgres.js";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { eventually, tempDir } from "../helpers/tmp.js";

const url = await testDatabase("relassets");

const PRODUCE = `// pipeline
import * as wmill from "windmill-client";
export async function main(n: number) {
  await wmill.writeS3File({ s3: "demo/a.json" }, JSON.stringify({ n }));
  return n;
}
`;

async function deploy(root: string): Promise<void> {
  const p = spawnSluice(["deploy", "--db", url], root);
  expect(await p.exited, p.output()).toBe(0);
}

describe("sluice worker --release keeps the deployed assets", () => {
  it("writes a step's s3:// object to the sluice.json's folder, and says a changed setting needs a restart", async () => {
    const shared = tempDir("sluice-shared-s3-");
    const deployer = makeProject({
      "sluice.json": JSON.stringify({ assets: { s3: { dir: shared } } }),
      "f/p/produce.ts": PRODUCE,
    });
    await deploy(deployer);

    const machine = tempDir("sluice-assets-machine-");
    const worker = spawnSluice(["worker", "--release", "--db", url], machine);
    await worker.waitFor(/worker \S+ ready/, 60_000);
    const enq = spawnSluice(["enqueue", "f/p/produce", '{"n": 7}', "--id", "p1", "--db", url], machine);
    expect(await enq.exited, enq.output()).toBe(0);
    await eventually(
      async () =>
        (await sql<{ status: string }>(url, "SELECT status FROM runs WHERE id = 'p1'"))[0]?.status === "succeeded",
      30_000,
    );
    expect(JSON.parse(readFileSync(join(shared, "demo", "a.json"), "utf8"))).toEqual({ n: 7 });
    expect(existsSync(join(machine, ".sluice", "release", ".sluice", "s3", "demo", "a.json"))).toBe(false);

    // Release 2 moves the assets: the running worker says it keeps the old ones until restarted.
    writeFileSync(
      join(deployer, "sluice.json"),
      JSON.stringify({ assets: { s3: { dir: tempDir("sluice-moved-s3-") } } }),
    );
    await deploy(deployer);
    await worker.waitFor(/release 2 changes sluice\.json "assets": restart this process to use them/, 30_000);

    worker.proc.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  }, 150_000);
});
