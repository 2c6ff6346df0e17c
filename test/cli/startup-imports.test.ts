/**
 * What a `sluice` process loads before it does its work. A lane worker (`sluice worker
 * --from-build`, started on every first run of an idle group) pays for every module it
 * loads: heavy drivers and other commands' code must wait until something needs them.
 * DuckDB's bindings and `pg` each cost a cold lane about 100 ms, loading the ~200 compiled
 * modules one by one about as much again (`npm run bench -- --lanes`). Each case runs the
 * real process with a loader hook that records every module it loads.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine } from "../../src/engine/engine.js";
import { writeBuildManifest } from "../../src/lanes/build-manifest.js";
import { Project } from "../../src/loader/project.js";
import { makeProject, REPO } from "../helpers/project.js";

/** Records ES modules through a loader hook and CommonJS ones from the require cache at exit. */
const HOOKS = `import { appendFileSync } from "node:fs";
let out;
export function initialize(data) { out = data.out; }
export async function load(url, context, next) { appendFileSync(out, url + "\\n"); return next(url, context); }`;
const PRELOAD = `import { register, createRequire } from "node:module";
import { appendFileSync } from "node:fs";
const out = process.env.SLUICE_TEST_LOADED;
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)}, { data: { out } });
process.on("exit", () => appendFileSync(out, Object.keys(createRequire(import.meta.url).cache).map((f) => "file://" + f + "\\n").join("")));`;

let scratch: string;
let preload: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "sluice-imports-"));
  preload = join(scratch, "preload.mjs");
  writeFileSync(preload, PRELOAD);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Runs `node <script> ...args` and returns the repository-relative paths of every module it loaded,
 * and the Node built-ins it imported as ES modules (`node:http`, …).
 */
function loadedBy(
  script: string,
  args: string[],
  cwd: string,
): { modules: string[]; builtins: string[]; stdout: string } {
  const out = join(scratch, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(out, "");
  const stdout = execFileSync(process.execPath, ["--import", pathToFileURL(preload).href, script, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, SLUICE_TEST_LOADED: out },
  });
  const prefix = pathToFileURL(REPO).href + "/";
  const modules = [
    ...new Set(
      readFileSync(out, "utf8")
        .split("\n")
        .filter((u) => u.startsWith(prefix))
        .map((u) => u.slice(prefix.length)),
    ),
  ];
  const builtins = [
    ...new Set(
      readFileSync(out, "utf8")
        .split("\n")
        .filter((u) => u.startsWith("node:")),
    ),
  ];
  return { modules, builtins, stdout };
}

const packageLoaded = (modules: string[], name: string) => modules.some((m) => m.startsWith(`node_modules/${name}/`));
/** Loaded on first use by every command. */
const DRIVERS = [
  "@duckdb/node-api",
  "pg",
  "typescript",
  "esbuild",
  "hono",
  "@hono/node-server",
  "@aws-sdk",
  // The trace SDK and its exporter load only with --otel or OTEL_EXPORTER_OTLP_* (cli/otel.ts).
  "@opentelemetry/sdk-trace-node",
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/exporter-trace-otlp-http",
  "@opentelemetry/otlp-exporter-base",
  "@opentelemetry/otlp-transformer",
];
/** The Postgres store's modules every process loads: what `openStore` needs to tell a URL from a path. */
const POSTGRES_AT_OPEN = [
  "dist/store/postgres/config.js",
  "dist/store/postgres/errors.js",
  "dist/store/postgres/on-demand.js",
];
/** Not loaded by a lane worker either (`sluice dev` watches files and serves /metrics). */
const HEAVY = [...DRIVERS, "chokidar", "prom-client"];

it("loads neither DuckDB, pg, TypeScript nor esbuild for --help, which loads every command", () => {
  const { modules, stdout } = loadedBy(join(REPO, "bin", "sluice.js"), ["--help"], REPO);
  expect(stdout).toContain("pipeline");
  const loaded = Object.fromEntries(["better-sqlite3", ...DRIVERS].map((p) => [p, packageLoaded(modules, p)]));
  // better-sqlite3 is the default store: it is expected (and proves the check sees CommonJS packages).
  expect(loaded).toEqual({ ...Object.fromEntries(DRIVERS.map((p) => [p, false])), "better-sqlite3": true });
});

describe("a lane worker (sluice worker --from-build) claiming a run", () => {
  let root: string;
  let build: string;

  beforeAll(async () => {
    root = makeProject({
      "workflows/hello.ts": `import { defineWorkflow } from "sluice";
export default defineWorkflow<{ n: number }>("hello", { handler: async (p, ctx) => ctx.run("greet", () => p.n + 1) });
`,
    });
    // What a server does for its lanes: load the project, publish it, list the versions.
    const engine = createEngine({ database: join(root, ".sluice", "sluice.db"), worker: false, scheduler: false });
    const project = new Project(root, engine);
    await project.loadAll();
    await engine.start();
    build = writeBuildManifest(root, project.builds());
    await engine.stop();
  });

  async function runOne(script: string): Promise<{ modules: string[]; builtins: string[] }> {
    const engine = createEngine({ database: join(root, ".sluice", "sluice.db"), worker: false, scheduler: false });
    await engine.start();
    const handle = await engine.enqueueRun("hello", { n: 41 });
    const args = ["worker", "--group", "default", "--exit-when-idle", "--idle", "100ms", "--from-build", build];
    const { modules, builtins, stdout } = loadedBy(script, args, root);
    expect(stdout).toContain("worker stopped after 1 claim(s)");
    const run = await engine.store.getRun(handle.id);
    expect([run?.status, run?.result]).toEqual(["succeeded", "42"]);
    await engine.stop();
    return { modules, builtins };
  }

  it("as users start it (bin/sluice.js) runs the bundle and loads no heavy package", async () => {
    const { modules, builtins } = await runOne(join(REPO, "bin", "sluice.js"));
    // The HTTP stack serves `--metrics-port` only; a lane worker claims without it.
    expect(builtins).toContain("node:path");
    expect(builtins).not.toContain("node:http");
    expect(modules.filter((m) => m.startsWith("dist/bundle/")).length).toBeGreaterThan(1);
    expect(modules.filter((m) => m.startsWith("dist/") && !m.startsWith("dist/bundle/"))).toEqual([]);
    expect(packageLoaded(modules, "better-sqlite3")).toBe(true);
    for (const p of HEAVY) expect(packageLoaded(modules, p), p).toBe(false);
    // Every other package it uses is linked into the bundle (esbuild.config.js), the OpenTelemetry
    // API's 44 modules included: from node_modules it reads only the SQLite driver and its loader.
    const packages = new Set(modules.filter((m) => m.startsWith("node_modules/")).map((m) => m.split("/")[1]));
    expect([...packages].sort()).toEqual(["better-sqlite3", "bindings", "file-uri-to-path"]);
  });

  it("loads no other command, HTTP, lake, diagram or script-runner module (the module graph the bundle keeps)", async () => {
    const { modules } = await runOne(join(REPO, "dist", "cli", "main.js"));
    expect(modules).toContain("dist/cli/commands/worker.js");
    const unwanted = modules.filter(
      (m) =>
        /^dist\/(http|lake|diagram)\//.test(m) ||
        (m.startsWith("dist/cli/commands/") && m !== "dist/cli/commands/worker.js") ||
        // The Postgres store loads on first use (store/postgres/on-demand.ts): a SQLite process reads
        // its URL parser and the on-demand handle only.
        (m.startsWith("dist/store/postgres/") && !POSTGRES_AT_OPEN.includes(m)) ||
        m === "dist/pipeline/runtime/watch.js" ||
        m === "dist/pipeline/runtime/lake-sdk.js" ||
        // plain SQL and Bash scripts' definitions (and their runners) load only for a project that has one
        m === "dist/pipeline/runtime/plain-definition.js" ||
        (m.startsWith("dist/pipeline/runtime/runners/") && m !== "dist/pipeline/runtime/runners/typescript.js"),
    );
    expect(unwanted).toEqual([]);
    expect(modules.filter((m) => m.startsWith("dist/store/postgres/")).sort()).toEqual(POSTGRES_AT_OPEN);
    for (const p of HEAVY) expect(packageLoaded(modules, p), p).toBe(false);
  });
});
