/**
 * Plain DuckDB SQL and Bash scripts (no `-- pipeline`) in a release, with real processes on a
 * shared SQLite file: `sluice deploy` publishes them as the release's workflows, a `sluice worker
 * --release` in an empty folder runs the released content, and the next release's changed script
 * (and deleted one) takes effect when the worker switches to it.
 */
import { join } from "node:path";
import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject, writeFiles } from "../helpers/project.js";
import { tempDir } from "../helpers/tmp.js";
import { sluice } from "./fixtures.js";

const version = (v: string) => `-- $tag (text) = 'none'\nSELECT '${v}' AS version, $tag AS tag;\n`;
const HELLO = 'who="$1"\necho "released $who"\n';

describe("plain SQL and Bash scripts in a release", () => {
  it("are published by sluice deploy and run from the released files by a release worker", async () => {
    const db = join(tempDir("sluice-plain-release-db-"), "shared.db");
    const deployer = makeProject({ "f/q/ver.sql": version("v1"), "f/q/hello.sh": HELLO }, "sluice-plain-deployer-");
    const first = await sluice(deployer, "deploy", "--db", db);
    expect(first.code, first.err).toBe(0);
    for (const line of ["+ file f/q/ver.sql", "+ file f/q/hello.sh", "+ workflow f/q/ver", "+ workflow f/q/hello"])
      expect(first.out).toContain(line);

    const machine = tempDir("sluice-plain-machine-");
    const worker = spawnSluice(["worker", "--release", "--db", db], machine);
    await worker.waitFor(/worker .* ready: .*f\/q\/ver/, 60_000);
    const run = async (name: string, payload: string) => {
      const r = await sluice(machine, "enqueue", name, payload, "--db", db, "--wait", "--timeout", "60s");
      return { code: r.code, result: r.code === 0 ? (JSON.parse(r.out) as unknown) : undefined, err: r.err };
    };
    expect(await run("f/q/ver", '{"tag": "a"}')).toMatchObject({ code: 0, result: [{ version: "v1", tag: "a" }] });
    expect(await run("f/q/hello", '{"who": "ann"}')).toMatchObject({ code: 0, result: "released ann" });

    // Release 2 changes the SQL script and drops the Bash one.
    writeFiles(deployer, { "f/q/ver.sql": version("v2") });
    rmSync(join(deployer, "f/q/hello.sh"));
    const second = await sluice(deployer, "deploy", "--db", db);
    expect(second.code, second.err).toBe(0);
    expect(second.out).toContain("- workflow f/q/hello");
    await worker.waitFor(/release 2 loaded \(was 1\)/, 30_000);
    expect(await run("f/q/ver", "{}")).toMatchObject({ code: 0, result: [{ version: "v2", tag: "none" }] });
    const gone = await run("f/q/hello", '{"who": "bo"}');
    expect(gone.code).toBe(1);
    expect(gone.err).toMatch(/workflow f\/q\/hello is not published/);

    worker.proc.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  }, 150_000);
});
