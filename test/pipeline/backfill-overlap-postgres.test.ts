/**
 * A second `sluice pipeline backfill` over partitions an unfinished backfill still runs (the same
 * folder and steps) is refused: it used to start, and both ran every shared partition's steps, each
 * step body twice. Real binaries: a `sluice server` and the CLI on the tests' own Postgres.
 */
import { describe, expect, it } from "vitest";
import { sql, testDatabase } from "../helpers/postgres.js";
import { finished, spawnSluice } from "../helpers/processes.js";
import { makeProject } from "../helpers/project.js";

const url = await testDatabase("bfoverlap");

const PROJECT = {
  "f/daily/extract.ts": `// pipeline
// partitioned daily
export async function main(partition: string) {
  await new Promise((r) => setTimeout(r, 300));
  return partition;
}
`,
};

const backfills = async () =>
  Number(
    (await sql<{ n: string }>(url, "SELECT count(*) AS n FROM runs WHERE workflow = 'sluice:pipeline-backfill'"))[0]!.n,
  );

describe("backfills over the same partitions", () => {
  it("refuses a second one while the first runs, naming it; a disjoint range and a later start are accepted", async () => {
    const root = makeProject(PROJECT);
    const db = ["--db", url];
    const server = spawnSluice(["server", "--port", "0", ...db], root);
    await server.waitFor(/server \d+ ready/, 60_000);
    const backfill = (from: string, to: string) =>
      finished(
        spawnSluice(
          ["pipeline", "backfill", "f/daily", "--from-partition", from, "--to-partition", to, "--detach", ...db],
          root,
        ),
      );

    const first = await backfill("2026-03-01", "2026-03-20");
    expect(first.code, first.err).toBe(0);
    const id = /^backfill (\S+) of /m.exec(first.out)![1]!;

    const again = await backfill("2026-03-15", "2026-03-25");
    expect(again.code).toBe(1);
    expect(again.out).toBe("");
    expect(again.err.trim().split("\n")).toHaveLength(1);
    expect(again.err).toContain(
      `backfill ${id} of f/daily is still running partitions 2026-03-15 … 2026-03-20 (6) with the same steps`,
    );
    expect(again.err).toContain(`sluice pipeline backfill cancel ${id}`);
    expect(await backfills()).toBe(1);

    const disjoint = await backfill("2026-04-01", "2026-04-02");
    expect(disjoint.code, disjoint.err).toBe(0);

    const cancel = await finished(spawnSluice(["pipeline", "backfill", "cancel", id, ...db], root));
    expect(cancel.code, cancel.err).toBe(0);
    const later = await backfill("2026-03-15", "2026-03-25");
    expect(later.code, later.err).toBe(0);
    expect(await backfills()).toBe(3);

    server.proc.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 150_000);
});
