/**
 * What every `sluice` process (each CLI command, each lane worker) loads before it does
 * anything: the heavy drivers must wait until a command needs them. DuckDB's bindings and
 * `pg` each cost a lane worker's cold start about 100 ms (the cold-lane figure of
 * `npm run bench`); a static value import of either from anything the CLI reaches fails here.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";
import { REPO } from "../helpers/project.js";

it("loads neither DuckDB, pg, TypeScript nor esbuild when the CLI starts", () => {
  const script = `
    await import(${JSON.stringify(join(REPO, "dist", "cli", "run.js"))});
    const { createRequire } = await import("node:module");
    const cache = Object.keys(createRequire(import.meta.url).cache);
    const loaded = (name) => cache.some((file) => file.includes("/node_modules/" + name + "/"));
    console.log(JSON.stringify({ sqlite: loaded("better-sqlite3"), duckdb: loaded("@duckdb/node-api"), pg: loaded("pg"), typescript: loaded("typescript"), esbuild: loaded("esbuild") }));`;
  const out = JSON.parse(
    execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: REPO, encoding: "utf8" }),
  );
  // better-sqlite3 is the default store: it is expected (and proves the check sees CommonJS packages).
  expect(out).toEqual({ sqlite: true, duckdb: false, pg: false, typescript: false, esbuild: false });
});
