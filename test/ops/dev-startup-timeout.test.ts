/**
 * `sluice dev --startup-timeout`: as `sluice worker` and `sluice server`, a dev started while its Postgres
 * cannot be reached (here a closed port on 127.0.0.1) waits for it for up to the given time, saying so, then
 * exits 1 with the database's error; without the option it fails at once, as before.
 */
import { describe, expect, it } from "vitest";
import { freePort } from "../../bench/pg-cluster.js";
import { finished, spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";

const files = {
  "sluice.json": "{}\n",
  "workflows/hello.ts": `import { defineWorkflow } from "sluice";\nexport const hello = defineWorkflow("hello", { handler: async () => "hi" });\n`,
};

async function unreachable(): Promise<string> {
  return `postgres://sluice:s3cret@127.0.0.1:${await freePort()}/nowhere`;
}

describe("sluice dev --startup-timeout", () => {
  it("waits for an unreachable Postgres for about the given time, saying so, then exits 1 with one clear line", async () => {
    const root = makeProject(files);
    const started = Date.now();
    const dev = spawnSluice(["dev", ".", "--port", "0", "--db", await unreachable(), "--startup-timeout", "3s"], root);
    const { code, err } = await finished(dev);
    const took = Date.now() - started;
    expect(code).toBe(1);
    expect(took).toBeGreaterThanOrEqual(2_900);
    expect(took).toBeLessThan(20_000);
    expect(err).toMatch(
      /sluice dev: opening the database failed \(cannot reach Postgres at .*ECONNREFUSED.*\); retrying in .*waiting for the database for up to --startup-timeout/,
    );
    expect(err).toMatch(/^sluice: cannot reach Postgres at postgres:\/\/sluice:\*\*\*@127\.0\.0\.1:\d+\/nowhere/m);
    expect(dev.output()).not.toMatch(/s3cret|\n\s+at |UI: http/);
  });

  it("without it fails at once, as before", async () => {
    const root = makeProject(files);
    const dev = spawnSluice(["dev", ".", "--port", "0", "--db", await unreachable()], root);
    const { code, err } = await finished(dev);
    expect(code).toBe(1);
    expect(err).not.toMatch(/retrying/);
    expect(err).toMatch(/^sluice: cannot reach Postgres at /m);
  });

  it("refuses a value that is not a duration, before starting anything", async () => {
    const root = makeProject(files);
    const dev = spawnSluice(["dev", ".", "--port", "0", "--startup-timeout", "soon"], root);
    const { code, err, out } = await finished(dev);
    expect(code).toBe(1);
    expect(err.trim().split("\n")).toHaveLength(1);
    expect(err).toMatch(/--startup-timeout/);
    expect(out).not.toMatch(/UI: http/);
  });
});
