/**
 * The package as users install it: `npm pack` the repository and the two compatibility
 * packages (`packages/tako.sh`, `packages/windmill-client`), install the tarballs into a
 * scratch app outside the repository, type-check the seeds' examples there with
 * `tsc --noEmit` (no `skipLibCheck`: the shipped `.d.ts` files are checked too), then run
 * the app with plain Node (no Sluice loader): it imports its workflow module, which imports
 * `tako.sh`, and calls `.enqueue()`. The installed `sluice` CLI, as child processes on the
 * same SQLite file, lists the run and a worker runs it.
 *
 * Needs `npm run build` (like every test that runs the CLI) and the npm cache that
 * `npm ci` filled (`--prefer-offline`; nothing is published).
 */
import { execFile } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO, writeFiles } from "../helpers/project.js";
import { tempDir } from "../helpers/tmp.js";

const exec = promisify(execFile);

interface Ran {
  code: number;
  out: string;
  err: string;
}

/** Runs a command to completion; never throws for a non-zero exit (the test checks `code`). */
async function sh(
  cmd: string,
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
  timeout = 120_000,
): Promise<Ran> {
  const fullEnv: Record<string, string | undefined> = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete fullEnv[k];
  try {
    const r = await exec(cmd, args, { cwd, env: fullEnv as NodeJS.ProcessEnv, timeout, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code?: number | string; stdout?: string; stderr?: string; message: string };
    return {
      code: typeof x.code === "number" ? x.code : -1,
      out: x.stdout ?? "",
      err: `${x.stderr ?? ""}${x.message}`,
    };
  }
}

/** The version the repository installed, so the scratch app finds it in the npm cache. */
const versionOf = (pkg: string) =>
  (JSON.parse(readFileSync(join(REPO, "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;

/** A user's test of a workflow with \`sluice/testing\` (type-checked: the entry point resolves with its types). */
const USER_TEST = `import { defineWorkflow } from "sluice";
import { createTestEngine, type CompletedRun } from "sluice/testing";

const remind = defineWorkflow<{ user: string }, string>("remind", {
  handler: async (p, ctx) => {
    await ctx.sleep("a-day", "1d");
    return \`reminded \${p.user}\`;
  },
});

export async function check(): Promise<CompletedRun<string>> {
  const t = await createTestEngine({ workflows: [remind] });
  try {
    return await t.runToCompletion<string>(remind, { user: "ada" }, { timeout: "10s" });
  } finally {
    await t.close();
  }
}
`;

/** The seed 002 producer snippets, verbatim, in a module (type-checked, not run). */
const SEED_PRODUCER = `// Seed 002, "Enqueue A Run" and "Wait For A Signal": server-side code, verbatim.
import fulfillOrder from "./workflows/fulfill-order";
import { signal, TakoError } from "tako.sh";

export async function onCheckout(orderId: string, userId: string) {
  const runId = await fulfillOrder.enqueue({ orderId: "ord_123" });

  await fulfillOrder.enqueue(
    { orderId: "ord_123" },
    {
      runAt: new Date(Date.now() + 60_000),
      retries: 6,
      id: "fulfill:ord_123",
    },
  );

  const woken = await signal(\`approval:order-\${orderId}\`, {
    approved: true,
    by: userId,
  });

  // The payload type flows into .enqueue(): a wrong payload does not compile.
  // @ts-expect-error orderId is a string
  await fulfillOrder.enqueue({ orderId: 123 });
  return { runId, woken };
}

export function isUnavailable(e: unknown): boolean {
  return e instanceof TakoError && e.code === "TAKO_UNAVAILABLE";
}
`;

/** The app that runs: plain JavaScript ES modules, as a Tako app's server code. */
const APP = {
  "src/workflows/fulfill-order.js": `// Seed 002's first example as JavaScript (the app's stand-ins for db, payments and mailer inline).
import { defineWorkflow } from "tako.sh";

/** @typedef {{ orderId: string }} FulfillOrderPayload */

export default defineWorkflow("fulfill-order", {
  retries: 4,
  handler: async (/** @type {FulfillOrderPayload} */ payload, ctx) => {
    const order = await ctx.run("load-order", () => ({ id: payload.orderId, total: 4200 }));
    const charge = await ctx.run("charge", () => ({ amount: order.total, idempotencyKey: \`\${ctx.runId}:charge\` }));
    return { orderId: order.id, charged: charge.amount };
  },
});
`,
  "src/server.js": `// The app's own server code: imports its workflow module and enqueues, with no Sluice loader.
import fulfillOrder from "./workflows/fulfill-order.js";
import { signal, TakoError } from "tako.sh";
import { workflow } from "windmill-client";

try {
  const now = await fulfillOrder.enqueue({ orderId: "ord_123" }, { id: "fulfill:ord_123" });
  const later = await fulfillOrder.enqueue({ orderId: "ord_9" }, { id: "fulfill:ord_9", runAt: new Date(Date.now() + 3_600_000), retries: 6 });
  const woken = await signal("approval:order-ord_123", { approved: true });
  console.log(JSON.stringify({ now, later, woken, windmill: typeof workflow }));
} catch (e) {
  console.log(JSON.stringify({ error: e instanceof TakoError ? "TakoError" : String(e), code: e.code, message: e.message }));
  process.exitCode = 3;
}
`,
};

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "ESNext",
    moduleResolution: "Bundler",
    lib: ["ES2023", "DOM"],
    types: ["node"],
    strict: true,
    // Seed 000's error-handling example reads e.message in a catch, as Windmill's editor allows.
    useUnknownInCatchVariables: false,
    allowJs: true,
    checkJs: true,
    noEmit: true,
    skipLibCheck: false,
  },
  include: ["seed/**/*.ts", "src/**/*.js"],
};

describe("the packed sluice package in a scratch app", () => {
  let dir: string;
  let app: string;
  let tarballs: { name: string; filename: string; files: { path: string }[] }[];

  beforeAll(async () => {
    if (!existsSync(join(REPO, "dist", "tako.js")))
      throw new Error("dist/ is missing or stale: run `npm run build` (npm test does it)");
    dir = tempDir("sluice-pack-");
    const packed = await sh(
      "npm",
      ["pack", ".", "./packages/tako.sh", "./packages/windmill-client", "--json", "--pack-destination", dir],
      REPO,
    );
    expect(packed.code, packed.err).toBe(0);
    tarballs = JSON.parse(packed.out);
  }, 120_000);

  it("ships dist with type declarations and the three entry points, and no tests, fixtures or sources", () => {
    expect(tarballs.map((t) => t.name)).toEqual(["sluice", "tako.sh", "windmill-client"]);
    const files = tarballs[0]!.files.map((f) => f.path);
    for (const f of [
      "package.json",
      "README.md",
      "bin/sluice.js",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/tako.js",
      "dist/tako.d.ts",
      "dist/windmill.js",
      "dist/windmill.d.ts",
      "dist/cli/main.js",
      "dist/ui/index.html",
      "sdk-python/wmill/__init__.py",
      "sdk-python/wmill/_host.py",
    ]) {
      expect(files, f).toContain(f);
    }
    expect(
      files.filter((f) =>
        /(^|\/)(test|tests)\/|\.test\.|testkit|fixtures|^src\/|^examples\/|^bench\/|\.map$|^\.ci\//.test(f),
      ),
    ).toEqual([]);
    for (const t of tarballs.slice(1))
      expect(t.files.map((f) => f.path).sort()).toEqual(["index.d.ts", "index.js", "package.json"]);
  });

  it("installs from the tarballs, type-checks the seeds' examples with tsc --noEmit, and enqueues from plain Node", async () => {
    app = join(dir, "app");
    mkdirSync(app);
    const tgz = (name: string) => `file:${join(dir, tarballs.find((t) => t.name === name)!.filename)}`;
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify({
        name: "scratch-app",
        private: true,
        type: "module",
        dependencies: { sluice: tgz("sluice"), "tako.sh": tgz("tako.sh"), "windmill-client": tgz("windmill-client") },
        devDependencies: { typescript: versionOf("typescript"), "@types/node": versionOf("@types/node") },
      }),
    );
    // --ignore-scripts: better-sqlite3's install script downloads a prebuilt binary from
    // GitHub or compiles for minutes; neither is possible/fast here, so the binary the
    // repository built for this same Node is copied in instead (below).
    const install = await sh(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"],
      app,
    );
    expect(install.code, install.err).toBe(0);
    const binary = join("node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node");
    mkdirSync(join(app, binary, ".."), { recursive: true });
    copyFileSync(join(REPO, binary), join(app, binary));

    // The seeds' TypeScript examples as they are in examples/ (seed 001's pipelines are
    // Windmill scripts checked by the pipeline tests, not by tsc), plus the producer snippets.
    for (const part of ["workflows", "lib", "f/wac", "f/my_folder", "f/ml", "f/data_team"])
      cpSync(join(REPO, "examples", part), join(app, "seed", part), { recursive: true });
    writeFiles(app, {
      ...APP,
      "seed/enqueue.ts": SEED_PRODUCER,
      "seed/testing.ts": USER_TEST,
      "tsconfig.json": JSON.stringify(TSCONFIG, null, 2),
    });

    const tsc = await sh(process.execPath, [join(app, "node_modules", "typescript", "bin", "tsc"), "-p", "."], app);
    expect(tsc.out + tsc.err, "tsc --noEmit").toBe("");
    expect(tsc.code).toBe(0);

    // Plain Node, no database configured: Tako's error.
    const db = join(app, ".sluice", "sluice.db");
    const none = await sh(process.execPath, ["src/server.js"], app, {
      SLUICE_DATABASE: undefined,
      SLUICE_DATABASE_URL: undefined,
    });
    expect(none.code).toBe(3);
    expect(JSON.parse(none.out)).toMatchObject({
      error: "TakoError",
      code: "TAKO_UNAVAILABLE",
      message: expect.stringMatching(/set SLUICE_DATABASE/),
    });

    // With the database named: the app enqueues (a producer; no worker in its process).
    const ran = await sh(process.execPath, ["src/server.js"], app, {
      SLUICE_DATABASE: db,
      SLUICE_DATABASE_URL: undefined,
    });
    expect(ran.err).toBe("");
    expect(JSON.parse(ran.out)).toEqual({
      now: "fulfill:ord_123",
      later: "fulfill:ord_9",
      woken: 0,
      windmill: "function",
    });

    const sluice = (...args: string[]) =>
      sh(process.execPath, [join(app, "node_modules", "sluice", "bin", "sluice.js"), ...args, "--db", db], app, {
        SLUICE_DATABASE_URL: undefined,
      });
    const listed = await sluice("runs", "--json");
    expect(listed.code, listed.err).toBe(0);
    const runs = JSON.parse(listed.out) as Array<{ id: string; status: string; maxAttempts: number; workflow: string }>;
    expect(runs.map((r) => [r.id, r.workflow, r.status, r.maxAttempts]).sort()).toEqual([
      ["fulfill:ord_123", "fulfill-order", "pending", 5],
      ["fulfill:ord_9", "fulfill-order", "pending", 7],
    ]);

    // A worker of the installed package runs the app's workflow module through its loader.
    const worker = await sluice("worker", "--dir", "src", "--exit-when-idle", "--idle", "300ms");
    expect(worker.code, worker.out + worker.err).toBe(0);
    const done = JSON.parse((await sluice("runs", "--status", "succeeded", "--json")).out) as Array<{
      id: string;
      result: unknown;
    }>;
    expect(done).toMatchObject([{ id: "fulfill:ord_123", result: { orderId: "ord_123", charged: 4200 } }]);
  }, 180_000);
});
