/**
 * Checkpoints and the final outcomes they lead to in one statement on Postgres (issue 15,
 * `store/postgres/checkpoints-and-ends.ts`): one round trip, no BEGIN or COMMIT, the NOTIFY
 * with it, and every command answered as the general path (`applyCommands` in a transaction)
 * answers it, stale claims included.
 */
import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/store.js";
import { applyCommands } from "../../src/store/postgres/commit.js";
import { CLAIM_SETUP } from "../../src/store/postgres/claim.js";
import type { ClaimedRun, Command, StepWrite } from "../../src/store/types.js";
import { testDatabase, withDatabase } from "../helpers/postgres.js";
import { enqueueRequest } from "../helpers/requests.js";
import { withStatements } from "../helpers/pg-statements.js";

const url = await testDatabase("saveend");
let n = 0;
const open: PostgresStore[] = [];

async function fresh(schema = `s${n++}`): Promise<PostgresStore> {
  const store = openPostgresStore(withDatabase(url, new URL(url).pathname.slice(1), { schema }), { pollMs: 60_000 });
  open.push(store);
  await store.ready();
  return store;
}

afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

const req = (id: string) => enqueueRequest(id);

const step = (key: string, value: string): StepWrite => ({
  key,
  kind: "step",
  target: null,
  status: "done",
  value,
  position: 0,
});

const IDS = ["pair", "stale", "save-only", "end-only", "fails", "bails", "done"];

/** Runs of every case, claimed, and "done" already finished under its claim. */
async function setUp(store: PostgresStore): Promise<Map<string, ClaimedRun>> {
  await store.commit(IDS.map((id) => ({ verb: "enqueue" as const, request: req(id) })));
  const claimed = await store.claim({ workerId: "w", limit: IDS.length, leaseMs: 30_000, workflows: ["wf"] });
  const of = new Map(claimed.map((c) => [c.run.id, c]));
  const done = of.get("done")!;
  await store.commit([
    {
      verb: "complete",
      lease: { runId: "done", token: done.token },
      outcome: { status: "succeeded", result: "0" },
      claimed: done.run,
    },
  ]);
  return of;
}

/** A batch of every case: live pairs, a stale claim's pair, a finished run's pair, lone checkpoints and outcomes. */
function batch(of: Map<string, ClaimedRun>): Command[] {
  const lease = (id: string, off = 0) => ({ runId: id, token: of.get(id)!.token + off });
  const save = (id: string, off = 0): Command => ({
    verb: "saveSteps",
    lease: lease(id, off),
    steps: [step("a", `"${id}"`), step("b", "2"), step("a", `"${id} again"`)],
  });
  const end = (id: string, outcome: Extract<Command, { verb: "complete" }>["outcome"], off = 0): Command => ({
    verb: "complete",
    lease: lease(id, off),
    outcome,
    claimed: of.get(id)!.run,
  });
  const ok = { status: "succeeded" as const, result: "1" };
  return [
    save("pair"),
    save("stale", 1),
    save("save-only"),
    end("end-only", ok),
    end("pair", ok),
    end("stale", ok, 1),
    save("fails"),
    end("fails", { status: "failed", error: { name: "Error", message: "boom", code: "X" } }),
    end("bails", { status: "cancelled", reason: "no more" }),
    save("done"),
    end("done", ok),
  ];
}

/** Drops what depends on when the test ran (times), keeping everything else of `value`. */
function timeless(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(timeless);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, /At$/.test(k) ? typeof v : timeless(v)]),
  );
}

async function state(store: PostgresStore): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const id of IDS) out[id] = timeless({ run: await store.getRun(id), steps: await store.getSteps(id) });
  return out;
}

describe("Postgres checkpoints and final outcomes in one statement", () => {
  it("sends a run's checkpoint and its outcome as one statement, its own transaction, with the NOTIFY", async () => {
    const schema = `s${n++}`;
    const store = await fresh(schema);
    const watcher = await fresh(schema);
    let woken = 0;
    const unwatch = watcher.watch(() => (woken += 1));
    await new Promise((r) => setTimeout(r, 500));
    await store.commit([{ verb: "enqueue", request: req("one") }]);
    const [c] = await store.claim({ workerId: "w", limit: 1, leaseMs: 30_000, workflows: ["wf"] });
    const lease = { runId: "one", token: c!.token };
    const before = woken;
    const { value: results, texts } = await withStatements(() =>
      store.commit([
        { verb: "saveSteps", lease, steps: [step("only", "1")] },
        { verb: "complete", lease, outcome: { status: "succeeded", result: "1" }, claimed: c!.run },
      ]),
    );
    // One statement: no BEGIN, no COMMIT, one round trip.
    expect(texts.map((q) => q.split(/\s/)[0])).toEqual(["WITH", "answered"]);
    expect(results[0]).toEqual({ ok: true });
    expect(results[1]).toEqual({ ok: true, finished: await watcher.getRun("one") });
    expect((await watcher.getSteps("one")).map((s) => [s.key, s.status, s.value])).toEqual([["only", "done", "1"]]);
    const t0 = Date.now();
    while (woken === before && Date.now() - t0 < 5_000) await new Promise((r) => setTimeout(r, 20));
    unwatch();
    expect(woken).toBeGreaterThan(before);
  });

  it("answers every command and leaves every run and step as the general path does, stale claims fenced", async () => {
    const fast = await fresh();
    const general = await fresh();
    const fastBatch = batch(await setUp(fast));
    const generalBatch = batch(await setUp(general));
    const { value: fastResults, texts } = await withStatements(() => fast.commit(fastBatch));
    expect(texts.map((q) => q.split(/\s/)[0])).toEqual(["WITH", "answered"]);
    const { results: generalResults } = await general.db.tx((c) => applyCommands(c, generalBatch, { audit: false }));
    expect(timeless(fastResults)).toEqual(timeless(generalResults));
    // The stale claim's and the finished run's pairs are refused; the live ones written.
    expect(fastResults.map((r) => (r.ok ? (r.finished?.status ?? "ok") : "fenced"))).toEqual([
      "ok",
      "fenced",
      "ok",
      "succeeded",
      "succeeded",
      "fenced",
      "ok",
      "failed",
      "cancelled",
      "fenced",
      "fenced",
    ]);
    for (const r of fastResults) if (r.ok && r.finished) expect(r.finished).toEqual(await fast.getRun(r.finished.id));
    expect(await state(fast)).toEqual(await state(general));
    expect(await fast.getSteps("stale")).toEqual([]);
    expect((await fast.getRun("stale"))!.status).toBe("running");
    expect((await fast.getSteps("pair")).map((s) => [s.key, s.value])).toEqual([
      ["a", '"pair again"'],
      ["b", "2"],
    ]);
  });

  it("sends the claim riding with them in the same round trip, answered as the general path answers it", async () => {
    const fast = await fresh();
    const general = await fresh();
    const claim: Command = { verb: "claim", request: { workerId: "w2", limit: 5, leaseMs: 30_000, workflows: ["wf"] } };
    const next = ["next-1", "next-2"].map((id) => ({ verb: "enqueue" as const, request: req(id) }));
    const fastBatch = [...batch(await setUp(fast)), claim];
    await fast.commit(next);
    const generalBatch = [...batch(await setUp(general)), claim];
    await general.commit(next);
    const { value: fastResults, texts } = await withStatements(() => fast.commit(fastBatch));
    // BEGIN, the checkpoints with the outcomes, the claim and the COMMIT leave before the first answer.
    expect(texts.map((q) => q.split(/[\s;]/)[0])).toEqual([
      "BEGIN",
      "WITH",
      "WITH",
      "COMMIT",
      "answered",
      "answered",
      "answered",
      "answered",
    ]);
    const { results: generalResults } = await general.db.tx(
      (c) => applyCommands(c, generalBatch, { audit: false }),
      CLAIM_SETUP,
    );
    expect(timeless(fastResults)).toEqual(timeless(generalResults));
    const claimed = fastResults[fastResults.length - 1]!;
    expect(claimed.ok && claimed.claimed!.map((c) => [c.run.id, c.token, c.run.leaseOwner])).toEqual([
      ["next-1", 1, "w2"],
      ["next-2", 1, "w2"],
    ]);
    expect(await state(fast)).toEqual(await state(general));
  });

  it("waits for a concurrent change of the run and fences against what it committed", async () => {
    const schema = `s${n++}`;
    const store = await fresh(schema);
    await store.commit(["reclaimed", "beaten"].map((id) => ({ verb: "enqueue" as const, request: req(id) })));
    const claimed = await store.claim({ workerId: "w", limit: 2, leaseMs: 30_000, workflows: ["wf"] });
    const pair = (id: string): Command[] => {
      const c = claimed.find((x) => x.run.id === id)!;
      const lease = { runId: id, token: c.token };
      return [
        { verb: "saveSteps", lease, steps: [step("s", "1")] },
        { verb: "complete", lease, outcome: { status: "succeeded", result: "1" }, claimed: c.run },
      ];
    };
    const other = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    await other.connect();
    try {
      // Another transaction holds each run's row while the pair is sent: one takes the run over
      // (another claim), the other only extends the lease (a heartbeat).
      for (const [id, change, expected] of [
        ["reclaimed", "claims = claims + 1, lease_owner = 'w2'", "fenced"],
        ["beaten", "lease_expires_at = lease_expires_at + 1000", "written"],
      ] as const) {
        await other.query("BEGIN");
        await other.query(`UPDATE runs SET ${change} WHERE id = $1`, [id]);
        let settled = false;
        const sent = store.commit(pair(id)).finally(() => (settled = true));
        await new Promise((r) => setTimeout(r, 300));
        expect(settled).toBe(false);
        await other.query("COMMIT");
        const results = await sent;
        const steps = (await store.getSteps(id)).map((s) => s.value);
        if (expected === "fenced") {
          expect(results).toEqual([
            { ok: false, fenced: true },
            { ok: false, fenced: true },
          ]);
          expect(steps).toEqual([]);
          expect((await store.getRun(id))!).toMatchObject({ status: "running", leaseOwner: "w2" });
        } else {
          expect(results[0]).toEqual({ ok: true });
          expect(results[1]).toEqual({ ok: true, finished: await store.getRun(id) });
          expect(steps).toEqual(["1"]);
        }
      }
    } finally {
      await other.end();
    }
  });

  it("keeps the general path for a run's second checkpoint, a command after its outcome, or another verb", async () => {
    const store = await fresh();
    const of = await setUp(store);
    const lease = { runId: "pair", token: of.get("pair")!.token };
    const sent = await withStatements(() =>
      store.commit([
        { verb: "saveSteps", lease, steps: [step("a", "1")] },
        { verb: "saveSteps", lease, steps: [step("b", "2")] },
        { verb: "complete", lease, outcome: { status: "succeeded", result: "1" }, claimed: of.get("pair")!.run },
      ]),
    );
    expect(sent.texts[0]!.split(/\s/)[0]).toBe("BEGIN");
    expect((await store.getRun("pair"))!.status).toBe("succeeded");
  });
});
