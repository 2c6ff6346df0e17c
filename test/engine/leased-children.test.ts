/**
 * A suspending parent's children are created already leased to the suspending worker, as many
 * as it has free slots, in the suspension's own transaction (issue 15, W2); the rest are
 * inserted plain and claimed later. Every child runs exactly once either way, on a real SQLite file
 * and on Postgres.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../src/index.js";
import { Project } from "../../src/loader/project.js";
import type { ClaimedRun, Command, CommandResult } from "../../src/store/types.js";
import { makeProject } from "../helpers/project.js";
import { testDatabase, withDatabase } from "../helpers/postgres.js";

const pgUrl = await testDatabase("leasedkids");
let schemas = 0;
const STORES = [
  { name: "SQLite", database: (root: string) => join(root, ".sluice", "sluice.db") },
  {
    name: "Postgres",
    database: () => withDatabase(pgUrl, new URL(pgUrl).pathname.slice(1), { schema: `kids${schemas++}` }),
  },
];

const FANOUT = `
import { appendFileSync } from "node:fs";
import { workflow, task } from "windmill-client";
async function child(file: string, i: number) {
  appendFileSync(file, i + "\\n");
  return i;
}
export const main = workflow(async (file: string, n: number) => {
  const xs = await Promise.all(Array.from({ length: n }, (_, i) => task(child)(file, i)));
  return xs.reduce((a, b) => a + b, 0);
});
`;

const engines: Engine[] = [];
afterEach(async () => {
  while (engines.length) await engines.pop()!.stop({ drainMs: 1000 });
});

/** An engine with `slots` worker slots on a project holding the fan-out workflow `f/fanout`. */
async function fanoutEngine(
  slots: number,
  database: (root: string) => string,
): Promise<{ engine: Engine; root: string }> {
  const root = makeProject({ "f/fanout.ts": FANOUT });
  mkdirSync(join(root, ".sluice"), { recursive: true });
  const engine = createEngine({
    database: database(root),
    scheduler: false,
    worker: { concurrency: slots },
  });
  engines.push(engine);
  await engine.start();
  await new Project(root, engine).loadAll();
  return { engine, root };
}

interface Seen {
  /** Per `suspend` committed with children: how many, how many asked to be leased, the claims answered. */
  suspends: Array<{ children: number; leased: number; claimed: ClaimedRun[] }>;
  /** Children taken by claims afterwards (riding a commit or the claim loop's own). */
  claimedLater: number;
}

/** Records the suspensions `engine` commits and the claims of children that follow. */
function spy(engine: Engine): Seen {
  const seen: Seen = { suspends: [], claimedLater: 0 };
  const store = engine.store as unknown as {
    commit: (c: Command[]) => Promise<CommandResult[]>;
    claim: (r: unknown) => Promise<ClaimedRun[]>;
  };
  const commit = store.commit.bind(store);
  const claim = store.claim.bind(store);
  const children = (claims: ClaimedRun[]) => claims.filter((c) => c.run.parentId !== null).length;
  store.claim = async (r) => {
    const got = await claim(r);
    seen.claimedLater += children(got);
    return got;
  };
  store.commit = async (commands) => {
    const results = await commit(commands);
    commands.forEach((c, i) => {
      const r = results[i]!;
      if (c.verb === "claim" && r.ok) seen.claimedLater += children(r.claimed ?? []);
      if (c.verb !== "suspend" || c.children.length === 0) return;
      seen.suspends.push({
        children: c.children.length,
        leased: c.children.filter((ch) => ch.claimFor).length,
        claimed: r.ok ? (r.claimed ?? []) : [],
      });
    });
    return results;
  };
  return seen;
}

/** The child indexes the ledger file records, counted. */
function ledger(file: string): Map<number, number> {
  const counts = new Map<number, number>();
  for (const line of readFileSync(file, "utf8").trim().split("\n"))
    counts.set(Number(line), (counts.get(Number(line)) ?? 0) + 1);
  return counts;
}

describe.each(STORES)("children created leased to the suspending worker ($name)", ({ database }) => {
  it("a worker with fewer free slots than children leases what it can and still runs every child exactly once", async () => {
    const { engine, root } = await fanoutEngine(5, database);
    const seen = spy(engine);
    const file = join(root, "ledger.txt");
    writeFileSync(file, "");
    const n = 40;
    const h = await engine.enqueueRun("f/fanout", [file, n]);
    const run = await engine.waitForRun(h.id, 30_000);
    expect(run.status).toBe("succeeded");
    expect(JSON.parse(run.result!)).toBe((n * (n - 1)) / 2);
    const counts = ledger(file);
    expect([...counts.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    // The parent held one of the 5 slots while suspending: 4 children were created leased to it,
    // answered with the suspension, and the other 36 inserted plain.
    expect(seen.suspends).toHaveLength(1);
    const [s] = seen.suspends;
    expect(s!.children).toBe(n);
    expect(s!.leased).toBe(4);
    expect(s!.claimed).toHaveLength(4);
    expect(s!.claimed.every((c) => c.run.parentId === h.id && c.run.status === "running")).toBe(true);
    expect(seen.claimedLater).toBe(n - 4);
  });

  it("with slots for all of them, every child is created leased and none is claimed afterwards", async () => {
    const { engine, root } = await fanoutEngine(100, database);
    const seen = spy(engine);
    const file = join(root, "ledger.txt");
    writeFileSync(file, "");
    const n = 50;
    const h = await engine.enqueueRun("f/fanout", [file, n]);
    const run = await engine.waitForRun(h.id, 30_000);
    expect(run.status).toBe("succeeded");
    expect(JSON.parse(run.result!)).toBe((n * (n - 1)) / 2);
    const counts = ledger(file);
    expect(counts.size).toBe(n);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    expect(seen.suspends).toHaveLength(1);
    expect(seen.suspends[0]!.leased).toBe(n);
    expect(seen.suspends[0]!.claimed).toHaveLength(n);
    expect(seen.claimedLater).toBe(0);
  });
});
