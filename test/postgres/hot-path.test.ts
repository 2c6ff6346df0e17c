/**
 * The Postgres hot path (issue 15): the NOTIFY sent in the round trip of the COMMIT
 * still reaches other processes' watchers, a claim right after a burst of enqueues
 * reads the claim-order index instead of sorting every due run, and the one-round-trip
 * first claim round keeps concurrency limits and the claim order.
 */
import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/store.js";
import { CANDIDATES, CLAIM_SETUP } from "../../src/store/postgres/claim.js";
import type { ClaimedRun, Command, EnqueueRequest } from "../../src/store/types.js";
import { testDatabase, withDatabase } from "../helpers/postgres.js";
import { enqueueRequest } from "../helpers/requests.js";
import { recordStatements } from "../helpers/pg-statements.js";
import { createEngine, defineWorkflow } from "../../src/index.js";

const url = await testDatabase("hotpath");
let n = 0;
const open: PostgresStore[] = [];

async function fresh(schema = `h${n++}`, pollMs = 60_000): Promise<{ store: PostgresStore; url: string }> {
  const u = withDatabase(url, new URL(url).pathname.slice(1), { schema });
  const store = openPostgresStore(u, { pollMs });
  open.push(store);
  await store.ready();
  return { store, url: u };
}

afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

const req = (id: string, over: Partial<EnqueueRequest> = {}) => enqueueRequest(id, { maxAttempts: 1, ...over });

describe("Postgres hot path", () => {
  it("wakes another store's watcher through the NOTIFY sent with the COMMIT", async () => {
    const schema = `h${n++}`;
    const a = await fresh(schema);
    const b = await fresh(schema);
    let woken = 0;
    const unwatch = b.store.watch(() => (woken += 1));
    // Let the LISTEN connection subscribe; its poll is a minute away, so only a NOTIFY can wake it.
    await new Promise((r) => setTimeout(r, 500));
    const before = woken;
    const [r] = await a.store.commit([{ verb: "enqueue", request: req("notified") }]);
    expect(r!.ok).toBe(true);
    const t0 = Date.now();
    while (woken === before && Date.now() - t0 < 5_000) await new Promise((r) => setTimeout(r, 20));
    unwatch();
    expect(woken).toBeGreaterThan(before);
  });

  it("a watcher of others' changes (othersOnly) skips its own store's NOTIFY and gets another store's", async () => {
    const schema = `h${n++}`;
    const a = await fresh(schema);
    const b = await fresh(schema);
    let others = 0;
    let all = 0;
    const unwatchOthers = a.store.watch(() => (others += 1), { othersOnly: true });
    const unwatchAll = a.store.watch(() => (all += 1));
    await new Promise((r) => setTimeout(r, 500));
    const waitFor = async (cond: () => boolean) => {
      const t0 = Date.now();
      while (!cond() && Date.now() - t0 < 5_000) await new Promise((r) => setTimeout(r, 20));
    };
    await a.store.commit([{ verb: "enqueue", request: req("own") }]);
    await waitFor(() => all > 0);
    await new Promise((r) => setTimeout(r, 200));
    expect(all).toBe(1);
    expect(others).toBe(0);
    await b.store.commit([{ verb: "enqueue", request: req("theirs") }]);
    await waitFor(() => others > 0);
    unwatchOthers();
    unwatchAll();
    expect(others).toBe(1);
    expect(all).toBe(2);
  });

  it("plans the claim of a fresh burst of runs as an ordered index scan, not a sort of every due run", async () => {
    const { store, url: u } = await fresh();
    const ids = Array.from({ length: 2_000 }, (_, i) => `burst-${i}`);
    await store.commit(ids.map((id) => ({ verb: "enqueue" as const, request: req(id) })));
    const schema = new URL(u).searchParams.get("schema")!;
    const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await client.connect();
    try {
      await client.query(["BEGIN", ...CLAIM_SETUP].join("; "));
      await client.query(`PREPARE candidates(text[], text[], int, text, bigint[], text) AS ${CANDIDATES}`);
      // Without and with a worker's code version (a versioned external worker's claim).
      const plans = [];
      for (const version of ["NULL", "'v1'"])
        plans.push(
          await client.query(
            `EXPLAIN (FORMAT JSON) EXECUTE candidates(ARRAY['wf'], NULL, 10, NULL, ARRAY[]::bigint[], ${version})`,
          ),
        );
      await client.query("ROLLBACK");
      for (const plan of plans) {
        const text = JSON.stringify(plan.rows[0]["QUERY PLAN"]);
        expect(text).not.toContain('"Node Type":"Sort"');
        expect(text).toContain('"Index Name":"runs_claim_order"');
      }
    } finally {
      await client.end();
    }
    const claimed = await store.claim({ workerId: "w", limit: 3, leaseMs: 30_000, workflows: ["wf"] });
    expect(claimed.map((c) => c.run.id)).toEqual(["burst-0", "burst-1", "burst-2"]);
  });

  it("claims keyless runs in the first round trip and keyed ones within their limit, in enqueue order", async () => {
    const { store } = await fresh();
    const key = { key: "k", limit: 1, windowMs: null };
    await store.commit([
      { verb: "enqueue", request: req("keyed-1", { concurrency: key }) },
      { verb: "enqueue", request: req("free-1") },
      { verb: "enqueue", request: req("keyed-2", { concurrency: key }) },
      { verb: "enqueue", request: req("free-2") },
      { verb: "enqueue", request: req("free-3") },
    ]);
    const claimed = await store.claim({ workerId: "w", limit: 4, leaseMs: 30_000, workflows: ["wf"] });
    expect(claimed.map((c) => c.run.id)).toEqual(["keyed-1", "free-1", "free-2", "free-3"]);
    expect(claimed.every((c) => c.token === 1 && c.run.status === "running")).toBe(true);
    // keyed-2 stays pending until keyed-1 ends.
    expect(await store.claim({ workerId: "w", limit: 4, leaseMs: 30_000, workflows: ["wf"] })).toEqual([]);
    expect((await store.getRun("keyed-2"))!.status).toBe("pending");
  });

  it("fences a completion batch in its finishing UPDATE: a stale claim is refused and its run left alone", async () => {
    const { store } = await fresh();
    await store.commit([
      { verb: "enqueue", request: req("live") },
      { verb: "enqueue", request: req("stale") },
    ]);
    const claimed = await store.claim({ workerId: "w", limit: 2, leaseMs: 30_000, workflows: ["wf"] });
    const token = new Map(claimed.map((c) => [c.run.id, c.token]));
    const results = await store.commit([
      {
        verb: "complete",
        lease: { runId: "live", token: token.get("live")! },
        outcome: { status: "succeeded", result: "1" },
      },
      {
        verb: "complete",
        lease: { runId: "stale", token: token.get("stale")! + 1 },
        outcome: { status: "succeeded", result: "2" },
      },
    ]);
    expect(results[0]).toMatchObject({ ok: true, finished: { id: "live", status: "succeeded", result: "1" } });
    expect(results[1]).toEqual({ ok: false, fenced: true });
    expect((await store.getRun("stale"))!).toMatchObject({ status: "running", result: null });
  });

  it("fences a checkpoint batch in its steps upsert: a stale claim's steps are not written, a live one's are", async () => {
    const { store } = await fresh();
    await store.commit([
      { verb: "enqueue", request: req("live") },
      { verb: "enqueue", request: req("stale") },
      { verb: "enqueue", request: req("done") },
    ]);
    const claimed = await store.claim({ workerId: "w", limit: 3, leaseMs: 30_000, workflows: ["wf"] });
    const lease = (id: string, off = 0) => ({ runId: id, token: claimed.find((c) => c.run.id === id)!.token + off });
    const step = { key: "s", kind: "step" as const, target: null, status: "done" as const, value: "1", position: 0 };
    const results = await store.commit([
      { verb: "saveSteps", lease: lease("live"), steps: [step] },
      { verb: "saveSteps", lease: lease("stale", 1), steps: [step] },
      { verb: "complete", lease: lease("done"), outcome: { status: "succeeded", result: "3" } },
    ]);
    expect(results[0]).toEqual({ ok: true });
    expect(results[1]).toEqual({ ok: false, fenced: true });
    expect(results[2]).toMatchObject({ ok: true, finished: { id: "done", status: "succeeded" } });
    expect((await store.getSteps("live")).map((s) => [s.key, s.value])).toEqual([["s", "1"]]);
    expect(await store.getSteps("stale")).toEqual([]);
    expect((await store.getRun("stale"))!.status).toBe("running");
  });

  it("sends a transaction's BEGIN with its first statement, which still runs inside the transaction", async () => {
    const { store } = await fresh();
    await store.ready();
    const failure = store.db.tx(async (c) => {
      await c.query("INSERT INTO meta (key, value) VALUES ('pipelined', 'x')");
      throw new Error("after the first statement");
    });
    await expect(failure).rejects.toThrow("after the first statement");
    expect((await store.db.query("SELECT 1 FROM meta WHERE key = 'pipelined'")).rows).toEqual([]);
  });

  it("a claim riding a child's completion takes the parent that completion re-queued", async () => {
    const { store } = await fresh();
    await store.commit([{ verb: "enqueue", request: req("parent") }]);
    const [p] = await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: ["wf"] });
    await store.commit([
      {
        verb: "suspend",
        lease: { runId: "parent", token: p!.token },
        steps: [{ key: "c", kind: "task", target: "wf", status: "pending", position: 0, childId: "child" }],
        children: [{ ...req("child"), parentKey: "c" }],
        wakeAfterMs: null,
        awaitChildren: true,
      },
    ]);
    const [ch] = await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: ["wf"] });
    expect(ch!.run.id).toBe("child");
    const [done, claim] = await store.commit([
      { verb: "complete", lease: { runId: "child", token: ch!.token }, outcome: { status: "succeeded", result: "7" } },
      { verb: "claim", request: { workerId: "w", limit: 5, leaseMs: 30_000, workflows: ["wf"] } },
    ]);
    expect(done).toMatchObject({ ok: true, finished: { id: "child", status: "succeeded" } });
    expect(claim!.ok && claim!.claimed!.map((c) => [c.run.id, c.steps.map((s) => [s.key, s.status, s.value])])).toEqual(
      [["parent", [["c", "done", "7"]]]],
    );
  });

  it("a COMMIT sent behind a statement that then fails is not taken for a commit", async () => {
    const { store } = await fresh();
    const failure = store.db.tx(async (c, end) => {
      await c.query("INSERT INTO meta (key, value) VALUES ('behind', 'x')");
      const bad = c.query("INSERT INTO meta (key, value) VALUES (NULL, 'x')");
      const committed = end.commitNow();
      await bad.catch(() => {});
      await committed;
    });
    await expect(failure).rejects.toThrow(/not committed \(ROLLBACK\)/);
    expect((await store.db.query("SELECT 1 FROM meta WHERE key = 'behind'")).rows).toEqual([]);
  });

  it("answers a batch of enqueues in one round trip only once committed, and still tells repeats from conflicts", async () => {
    const { store } = await fresh();
    const first = await store.commit([
      { verb: "enqueue", request: req("a", { payload: '{"x":1}' }) },
      { verb: "enqueue", request: req("b") },
    ]);
    expect(first).toEqual([
      { ok: true, enqueued: { id: "a", deduplicated: false } },
      { ok: true, enqueued: { id: "b", deduplicated: false } },
    ]);
    const other = openPostgresStore(withDatabase(url, new URL(url).pathname.slice(1), { schema: `h${n - 1}` }));
    open.push(other);
    expect((await other.getRun("a"))!.status).toBe("pending");
    const again = await store.commit([
      { verb: "enqueue", request: req("a", { payload: '{ "x": 1 }' }) },
      { verb: "enqueue", request: req("b", { payload: '{"y":2}' }) },
      { verb: "enqueue", request: req("c") },
    ]);
    expect(again[0]).toEqual({ ok: true, enqueued: { id: "a", deduplicated: true } });
    expect(again[1]).toMatchObject({ ok: false, error: { code: "RUN_ID_CONFLICT" } });
    expect(again[2]).toEqual({ ok: true, enqueued: { id: "c", deduplicated: false } });
  });

  it("commits a batch of checkpoints alone with its fence: the live claim's steps are durable, the stale one's not written", async () => {
    const { store } = await fresh();
    await store.commit([
      { verb: "enqueue", request: req("live") },
      { verb: "enqueue", request: req("stale") },
    ]);
    const claimed = await store.claim({ workerId: "w", limit: 2, leaseMs: 30_000, workflows: ["wf"] });
    const lease = (id: string, off = 0) => ({ runId: id, token: claimed.find((c) => c.run.id === id)!.token + off });
    const step = { key: "s", kind: "step" as const, target: null, status: "done" as const, value: "1", position: 0 };
    const results = await store.commit([
      { verb: "saveSteps", lease: lease("stale", 1), steps: [step] },
      { verb: "saveSteps", lease: lease("live"), steps: [step] },
    ]);
    expect(results).toEqual([{ ok: false, fenced: true }, { ok: true }]);
    const other = openPostgresStore(withDatabase(url, new URL(url).pathname.slice(1), { schema: `h${n - 1}` }));
    open.push(other);
    expect((await other.getSteps("live")).map((s) => [s.key, s.status, s.value])).toEqual([["s", "done", "1"]]);
    expect(await other.getSteps("stale")).toEqual([]);
  });

  it("answers a run created leased and a finished run as a read of them returns them, without reading them back", async () => {
    const { store } = await fresh();
    const request = req("leased", {
      payload: '{"n":1}',
      priority: 3,
      options: '{"tag":"x"}',
      createdBy: "alice",
      concurrency: { key: "k", limit: 2, windowMs: null },
      claimFor: { workerId: "w", leaseMs: 30_000 },
    });
    const [enq] = await store.commit([{ verb: "enqueue", request }]);
    const claimed = enq!.ok ? enq!.enqueued!.claimed! : null;
    expect(claimed).not.toBeNull();
    expect(claimed!.run).toEqual(await store.getRun("leased"));
    // A failure: its error comes back parsed, as a read parses it.
    const error = { name: "Error", message: "boom", code: "X" };
    const [done] = await store.commit([
      {
        verb: "complete",
        lease: { runId: "leased", token: claimed!.token },
        outcome: { status: "failed", error },
        claimed: claimed!.run,
      },
    ]);
    expect(done!.ok && done!.finished).toEqual(await store.getRun("leased"));
    expect(done!.ok && done!.finished!.error).toMatchObject(error);
    // A claim answers whole runs too (rows read as arrays).
    await store.commit([{ verb: "enqueue", request: req("plain", { payload: '{"p":2}', priority: 1 }) }]);
    const [c] = await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: ["wf"] });
    expect(c!.run).toEqual(await store.getRun("plain"));
  });

  it("commits final outcomes alone as one fenced statement: a stale claim is refused, a live one durable, others woken", async () => {
    const schema = `h${n++}`;
    const { store } = await fresh(schema);
    const watcher = await fresh(schema);
    let woken = 0;
    const unwatch = watcher.store.watch(() => (woken += 1));
    await new Promise((r) => setTimeout(r, 500));
    await store.commit([
      { verb: "enqueue", request: req("live") },
      { verb: "enqueue", request: req("stale") },
    ]);
    const claimed = await store.claim({ workerId: "w", limit: 2, leaseMs: 30_000, workflows: ["wf"] });
    const of = (id: string) => claimed.find((c) => c.run.id === id)!;
    // Statements sent on the store's connections: the finish and its COMMIT leave together.
    const recorded = recordStatements();
    const sent = recorded.texts;
    const before = woken;
    let results: Awaited<ReturnType<typeof store.commit>>;
    try {
      results = await store.commit([...staleAndLive(of)]);
    } finally {
      recorded.stop();
    }
    expect(results[0]).toEqual({ ok: false, fenced: true });
    expect(results[1]).toMatchObject({ ok: true, finished: { id: "live", status: "succeeded", result: "1" } });
    // One statement, its own transaction: no BEGIN, no COMMIT, one round trip.
    expect(sent.map((q) => q.split(/\s/)[0])).toEqual(["WITH", "answered"]);
    const other = watcher.store;
    expect((await other.getRun("live"))!).toMatchObject({ status: "succeeded", result: "1" });
    expect((await other.getRun("stale"))!).toMatchObject({ status: "running", result: null });
    // The NOTIFY went with it: another process's waiters learn of the finished run.
    const t0 = Date.now();
    while (woken === before && Date.now() - t0 < 5_000) await new Promise((r) => setTimeout(r, 20));
    unwatch();
    expect(woken).toBeGreaterThan(before);
  });

  it("completes and claims the next runs in one round trip: everything is sent before any answer, stale claims fenced", async () => {
    const { store } = await fresh();
    await store.commit(
      ["live", "stale", "next-1", "next-2"].map((id) => ({ verb: "enqueue" as const, request: req(id) })),
    );
    const claimed = await store.claim({ workerId: "w", limit: 2, leaseMs: 30_000, workflows: ["wf"] });
    const of = (id: string) => claimed.find((c) => c.run.id === id)!;
    const sent = recordStatements();
    let results: Awaited<ReturnType<typeof store.commit>>;
    try {
      results = await store.commit([
        ...staleAndLive(of),
        { verb: "claim", request: { workerId: "w2", limit: 5, leaseMs: 30_000, workflows: ["wf"] } },
      ]);
    } finally {
      sent.stop();
    }
    expect(results[0]).toEqual({ ok: false, fenced: true });
    expect(results[1]).toMatchObject({ ok: true, finished: { id: "live", status: "succeeded", result: "1" } });
    const next = results[2]!.ok ? results[2]!.claimed! : [];
    expect(next.map((c) => [c.run.id, c.token, c.run.status, c.run.leaseOwner, c.steps])).toEqual([
      ["next-1", 1, "running", "w2", []],
      ["next-2", 1, "running", "w2", []],
    ]);
    // BEGIN, the finishing UPDATE, the claim and the COMMIT all leave before the first answer.
    expect(sent.texts.map((q) => q.split(/[\s;]/)[0])).toEqual([
      "BEGIN",
      "WITH",
      "WITH",
      "COMMIT",
      "answered",
      "answered",
      "answered",
      "answered",
    ]);
    for (const c of next) expect(c.run).toEqual(await store.getRun(c.run.id));
    expect((await store.getRun("live"))!).toMatchObject({ status: "succeeded", result: "1" });
    expect((await store.getRun("stale"))!).toMatchObject({ status: "running", result: null });
  });

  it("a claim riding final outcomes passes over keyed and reclaimed runs, then takes them within limits with their steps", async () => {
    const { store } = await fresh();
    const key = { key: "k", limit: 1, windowMs: null };
    await store.commit([
      { verb: "enqueue", request: req("plain") },
      { verb: "enqueue", request: req("again", { maxAttempts: 3 }) },
    ]);
    const claimed = await store.claim({ workerId: "w", limit: 2, leaseMs: 30_000, workflows: ["wf"] });
    const of = (id: string) => claimed.find((c) => c.run.id === id)!;
    const step = { key: "s", kind: "step" as const, target: null, status: "done" as const, value: "9", position: 0 };
    // "again" checkpoints a step, then fails an attempt: due again, with a step to load at its next claim.
    await store.commit([{ verb: "saveSteps", lease: { runId: "again", token: of("again").token }, steps: [step] }]);
    await store.commit([
      {
        verb: "complete",
        lease: { runId: "again", token: of("again").token },
        outcome: { status: "retry", error: { name: "Error", message: "x" }, delayMs: 0 },
      },
    ]);
    await store.commit([
      { verb: "enqueue", request: req("keyed-1", { concurrency: key }) },
      { verb: "enqueue", request: req("keyed-2", { concurrency: key }) },
      { verb: "enqueue", request: req("free") },
    ]);
    const results = await store.commit([
      {
        verb: "complete",
        lease: { runId: "plain", token: of("plain").token },
        outcome: { status: "succeeded", result: "1" },
        claimed: of("plain").run,
      },
      { verb: "claim", request: { workerId: "w", limit: 5, leaseMs: 30_000, workflows: ["wf"] } },
    ]);
    expect(results[0]).toMatchObject({ ok: true, finished: { id: "plain", status: "succeeded" } });
    const next = results[1]!.ok ? results[1]!.claimed! : [];
    // Everything due but keyed-2 (keyed-1 holds the key's one slot); "again" with its checkpoint.
    expect(next.map((c) => c.run.id).sort()).toEqual(["again", "free", "keyed-1"]);
    expect(next.find((c) => c.run.id === "again")!.steps.map((s) => [s.key, s.value])).toEqual([["s", "9"]]);
    expect(next.find((c) => c.run.id === "again")!.token).toBe(2);
    for (const c of next) expect(c.run).toEqual(await store.getRun(c.run.id));
    expect((await store.getRun("keyed-2"))!.status).toBe("pending");
  });

  it("a notifiedOnly watcher is called by other stores' NOTIFYs only, not by the safety-net poll", async () => {
    const schema = `h${n++}`;
    const a = await fresh(schema, 100);
    const b = await fresh(schema);
    let plain = 0;
    let notified = 0;
    const offPlain = a.store.watch(() => (plain += 1));
    const offNotified = a.store.watch(() => (notified += 1), { othersOnly: true, notifiedOnly: true });
    await new Promise((r) => setTimeout(r, 600));
    await a.store.commit([{ verb: "enqueue", request: req("own") }]);
    await new Promise((r) => setTimeout(r, 300));
    expect(plain).toBeGreaterThan(2);
    expect(notified).toBe(0);
    await b.store.commit([{ verb: "enqueue", request: req("theirs") }]);
    const t0 = Date.now();
    while (notified === 0 && Date.now() - t0 < 5_000) await new Promise((r) => setTimeout(r, 20));
    offPlain();
    offNotified();
    expect(notified).toBeGreaterThan(0);
  });

  it("awaiting runs this process executes does not re-read them at its own commits", async () => {
    const schema = `h${n++}`;
    const u = withDatabase(url, new URL(url).pathname.slice(1), { schema });
    const slow = defineWorkflow("hot-slow", { handler: async () => (await new Promise((r) => setTimeout(r, 250)), 1) });
    const engine = createEngine({ database: u, workflows: [slow], scheduler: false, worker: { concurrency: 2 } });
    await engine.start();
    // The store's LISTEN in place first: the waiters' one catch-up read when it comes up (for ends
    // committed elsewhere before it, `listener.test.ts`) is not what this test counts.
    await new Promise((r) => setTimeout(r, 500));
    try {
      const store = engine.store as unknown as { getRuns: (...a: unknown[]) => Promise<unknown> };
      const getRuns = store.getRuns.bind(store);
      let reads = 0;
      store.getRuns = (...a: unknown[]) => ((reads += 1), getRuns(...a));
      const handles = await engine.enqueueMany(slow, [1, 2, 3, 4, 5, 6, 7, 8]);
      // Eight runs, two at a time, 250 ms each: a second and more of this process's own commits.
      expect(await Promise.all(handles.map((h) => h.result({ timeoutMs: 10_000 })))).toEqual(Array(8).fill(1));
      // No read: the runs were created here (no first check) and their ends arrive as events.
      expect(reads).toBe(0);
    } finally {
      await engine.stop({ drainMs: 1000 });
    }
  });

  it("a pipelined transaction whose later statement fails commits nothing", async () => {
    const { store } = await fresh();
    const failure = store.db.pipelined([
      { text: "INSERT INTO meta (key, value) VALUES ('first', 'x')" },
      { text: "INSERT INTO meta (key, value) VALUES (NULL, 'x')" },
    ]);
    await expect(failure).rejects.toThrow(/null value/);
    expect((await store.db.query("SELECT 1 FROM meta WHERE key = 'first'")).rows).toEqual([]);
  });
});

/** Completions of the claims `of` names: "stale" under a token one past its own (fenced), "live" under its own. */
function staleAndLive(of: (id: string) => ClaimedRun): Command[] {
  return [
    {
      verb: "complete",
      lease: { runId: "stale", token: of("stale").token + 1 },
      outcome: { status: "succeeded", result: "2" },
      claimed: of("stale").run,
    },
    {
      verb: "complete",
      lease: { runId: "live", token: of("live").token },
      outcome: { status: "succeeded", result: "1" },
      claimed: of("live").run,
    },
  ];
}
