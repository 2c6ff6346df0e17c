/**
 * A command run in a folder that is not a Sluice project (a repository root) says so and imports
 * nothing; in a project, only the places runnables live are imported. Real binary: the failure
 * this guards against was a module with top-level side effects (`bench/cold/timer-worker.ts`)
 * taking over the CLI process.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import { spawnSluice } from "../helpers/processes.js";

/** A script that defines a workflow but is not one: importing it writes a file and exits 2, as the bench worker does. */
const SIDE_EFFECT = `import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineWorkflow } from "sluice";
writeFileSync(join(process.cwd(), "imported.txt"), "imported");
const [database, concurrency] = process.argv.slice(2);
if (!database || !Number(concurrency)) {
  console.error("usage: timer-worker.js <database> <concurrency>");
  process.exit(2);
}
export const timer = defineWorkflow("bench-timer", { handler: async () => 1 });
`;

const WELCOME = `import { defineWorkflow } from "sluice";
export default defineWorkflow("welcome", { handler: async (p: { name: string }) => \`hello \${p.name}\` });
`;

async function sluice(args: string[], root: string) {
  const p = spawnSluice(args, root);
  return { code: await p.exited, out: p.output(), stdout: p.stdout(), stderr: p.stderr() };
}

const NOT_A_PROJECT =
  /^sluice: .* is not a Sluice project \(it has no sluice\.json and no workflows\/.*--dir <project>/m;

describe("a folder that is not a Sluice project", () => {
  it("enqueue says so, exits 1, imports nothing and creates no database", async () => {
    const root = makeProject({ "package.json": "{}", "bench/timer-worker.ts": SIDE_EFFECT, "src/lib.ts": "" });
    const r = await sluice(["enqueue", "welcome", '{"name":"x"}'], root);
    expect(r.code, r.out).toBe(1);
    expect(r.stderr).toMatch(/^sluice: there is no database at .*sluice\.db to enqueue welcome in, and /m);
    expect(r.stderr).toMatch(NOT_A_PROJECT);
    expect(r.out).not.toMatch(/usage: timer-worker/);
    expect(existsSync(join(root, "imported.txt"))).toBe(false);
    expect(existsSync(join(root, ".sluice"))).toBe(false);
  }, 30_000);

  it("every command that opens the database refuses it and creates nothing, unless the database is named or there", async () => {
    const root = makeProject({ "package.json": "{}" });
    const commands = [
      ["runs"],
      ["show", "abc"],
      ["logs", "--run", "abc"],
      ["signal", "ev", '{"a":1}', "--buffer", "1h"],
      ["cancel", "abc"],
      ["approve", "abc"],
      ["token", "list"],
      ["triggers"],
      ["lake", "lineage", "main/orders"],
      ["pipeline", "status"],
      ["pipeline", "backfill", "status", "abc"],
      ["deploy", "--dry-run"],
    ];
    for (const r of await Promise.all(commands.map((args) => sluice(args, root)))) {
      expect(r.code, r.out).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(
        /^sluice: there is no database at .*sluice\.db \(name one with --db or SLUICE_DATABASE_URL\), and /m,
      );
      expect(r.stderr).toMatch(NOT_A_PROJECT);
    }
    const pull = await sluice(["pull", "out"], root);
    expect(pull.code, pull.out).toBe(1);
    expect(pull.stderr).toMatch(
      /^sluice: there is no database at .*sluice\.db to pull a release from: name it with --db/m,
    );
    expect(existsSync(join(root, ".sluice"))).toBe(false);
    expect(existsSync(join(root, "out"))).toBe(false);
    // Named: opened (created) as asked; once it exists, the default one is read without --db.
    const named = await sluice(["signal", "ev", "--buffer", "1h", "--db", "elsewhere.db"], root);
    expect(named.code, named.out).toBe(0);
    expect(existsSync(join(root, "elsewhere.db"))).toBe(true);
    expect((await sluice(["runs", "--db", join(".sluice", "sluice.db")], root)).code).toBe(0);
    const runs = await sluice(["runs"], root);
    expect(runs, runs.out).toMatchObject({ code: 0, stdout: "no runs\n" });
    // A token may come before the server that creates the database (a server for Go workers starts in any folder).
    const bare = makeProject({});
    expect((await sluice(["token", "create", "--scope", "worker", "--name", "go"], bare)).code).toBe(0);
    expect(existsSync(join(bare, ".sluice", "sluice.db"))).toBe(true);
  }, 60_000);

  it("a database URL of another scheme than Postgres is refused, and no file is made after it", async () => {
    const root = makeProject({});
    for (const url of ["postgress://sluice:secret@127.0.0.1:55432/sluice", "mysql://x@y/z"]) {
      for (const args of [
        ["runs", "--db", url],
        ["token", "create", "--scope", "admin", "--name", "t", "--db", url],
      ]) {
        const r = await sluice(args, root);
        expect(r.code, r.out).toBe(1);
        expect(r.stderr).toContain(`the database setting is a ${url.slice(0, url.indexOf(":"))}:// URL`);
        expect(r.stderr).not.toContain("secret");
      }
    }
    expect(existsSync(join(root, "postgress:"))).toBe(false);
    expect(existsSync(join(root, "mysql:"))).toBe(false);
  }, 60_000);

  it("sluice dev refuses it before starting anything", async () => {
    const root = makeProject({ "package.json": "{}", "bench/timer-worker.ts": SIDE_EFFECT });
    const r = await sluice(["dev", ".", "--port", "0", "--no-watch"], root);
    expect(r.code, r.out).toBe(1);
    expect(r.stderr).toMatch(NOT_A_PROJECT);
    expect(r.stdout).not.toMatch(/UI: http/);
    expect(existsSync(join(root, "imported.txt"))).toBe(false);
    expect(existsSync(join(root, ".sluice"))).toBe(false);
  }, 30_000);
});

describe("a Sluice project", () => {
  it("loads workflows/ for an enqueue and never imports a module outside the runnable folders", async () => {
    const root = makeProject({
      "sluice.json": "{}",
      "workflows/welcome.ts": WELCOME,
      "bench/timer-worker.ts": SIDE_EFFECT,
    });
    const r = await sluice(["enqueue", "welcome", '{"name":"x"}', "--id", "w1"], root);
    expect(r.code, r.out).toBe(0);
    const worker = await sluice(["worker", "--exit-when-idle", "--idle", "300ms"], root);
    expect(worker.code, worker.out).toBe(0);
    const show = await sluice(["show", "w1", "--json"], root);
    expect(JSON.parse(show.stdout)).toMatchObject({ status: "succeeded", result: "hello x" });
    expect(existsSync(join(root, "imported.txt"))).toBe(false);
  }, 60_000);
});
