/**
 * `sluice logs --follow` on Postgres, as the real binary: lines are numbered when inserted but
 * writers commit concurrently, so a line can become visible after lines numbered above it. The
 * follower prints it anyway (cli/log-follow.ts), and prints no line twice. The out-of-order
 * commit is made with two real connections: one holds its inserted line in an open transaction
 * while the other's line commits.
 *
 * Each poll reads a short range at the end of the log: a follow whose filter matches nothing
 * (`--since 1h` over a log of old lines) reads almost no line of the log once it has started,
 * as Postgres's own counters of the table's reads show (it read the whole log at every poll).
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";
import { sql, testDatabase } from "../helpers/postgres.js";
import { delay } from "../helpers/tmp.js";

const HELLO = `import { defineWorkflow } from "sluice";
export default defineWorkflow("hello", { handler: async () => { console.log("greeting"); return 1; } });`;

describe("sluice logs --follow on Postgres", () => {
  it("prints a line committed after a line numbered above it, once", { timeout: 90_000 }, async () => {
    const url = await testDatabase("logsfollow");
    const root = makeProject({ "workflows/hello.ts": HELLO }, "sluice-pg-logs-");
    const env = { SLUICE_DATABASE_URL: url };
    const enq = spawnSluice(["enqueue", "hello", "{}", "--id", "h1"], root, env);
    expect(await enq.exited, enq.stderr()).toBe(0);
    const worker = spawnSluice(["worker", "--exit-when-idle", "--idle", "300ms"], root, env);
    expect(await worker.exited, worker.stderr()).toBe(0);

    const follow = spawnSluice(["logs", "--follow", "--workflow", "hello"], root, env);
    await follow.waitFor(/hello h1: greeting/, 20_000);
    const insert =
      "INSERT INTO logs (run_id, attempt, level, message, ts) VALUES ('h1', 1, 'info', $1, $2) RETURNING seq";
    // A writer takes a number for its line and has not committed yet…
    const held = new pg.Client({ connectionString: url.split("?")[0], options: "-c search_path=sluice" });
    await held.connect();
    try {
      await held.query("BEGIN");
      const [late] = (await held.query<{ seq: string }>(insert, ["late line", Date.now()])).rows;
      // …while another writer's line, numbered above it, commits and is printed.
      const [early] = await sql<{ seq: string }>(url, insert, ["early line", Date.now()]);
      expect(Number(early!.seq)).toBeGreaterThan(Number(late!.seq));
      await follow.waitFor(/hello h1: early line/, 10_000);
      await new Promise((r) => setTimeout(r, 1_500));
      await held.query("COMMIT");
    } finally {
      await held.end();
    }
    await follow.waitFor(/hello h1: late line/, 10_000);
    follow.proc.kill("SIGTERM");
    expect(await follow.exited).toBe(0);
    for (const line of ["greeting", "early line", "late line"])
      expect(follow.stdout().match(new RegExp(`h1: ${line}\\n`, "g")), follow.stdout()).toHaveLength(1);
  });

  it(
    "reads a short range at the end of the log at each poll, even when nothing matches",
    { timeout: 90_000 },
    async () => {
      const url = await testDatabase("logsfollowscan");
      const root = makeProject({ "workflows/hello.ts": HELLO }, "sluice-pg-logs-");
      const env = { SLUICE_DATABASE_URL: url };
      const enq = spawnSluice(["enqueue", "hello", "{}", "--id", "h1"], root, env);
      expect(await enq.exited, enq.stderr()).toBe(0);
      // A log of 200 000 lines, all logged two days ago.
      const old = Date.now() - 2 * 86_400_000;
      await sql(
        url,
        `INSERT INTO logs (run_id, attempt, level, message, ts)
       SELECT 'h1', 1, 'info', 'old line ' || i, $1 FROM generate_series(1, 200000) i`,
        [old],
      );
      const reads = async () => {
        const [r] = await sql<{ n: string }>(
          url,
          "SELECT COALESCE(seq_tup_read, 0) + COALESCE(idx_tup_fetch, 0) AS n FROM pg_stat_user_tables WHERE relname = 'logs'",
        );
        return Number(r!.n);
      };
      const follow = spawnSluice(["logs", "--follow", "--since", "1h"], root, env);
      // Past the first polls and the follower's 5 s re-read window of its start.
      await delay(7_000);
      const before = await reads();
      await delay(6_000);
      const after = await reads();
      follow.proc.kill("SIGTERM");
      expect(await follow.exited).toBe(0);
      expect(follow.stdout()).toBe("");
      expect(follow.stderr()).toBe("");
      // About twelve polls in six seconds; each used to read the 200 000 lines.
      expect(after - before).toBeLessThan(5_000);
    },
  );
});
