/**
 * Approval races across real server processes: each of 30 waiting runs gets three decisions at
 * once (approve through one server, reject through another, approve again through the first).
 * On Postgres the two are separate `sluice server` processes on one database; on SQLite both
 * decisions go to one server (one server per SQLite file). Exactly one decision wins per run
 * (200), the others are refused (409) and recorded as `already-decided`; no 5xx; every run
 * finishes once, with the winner's decision.
 */
import { expect, it } from "vitest";
import { type SluiceProcess, spawnSluice } from "../helpers/processes.js";
import { chaosProject, type ChaosProject, record, type StoreKind, stopAll, untilFinished } from "./harness.js";

const GATE = `import { step, waitForApproval, workflow } from "windmill-client";
export const main = workflow(async () => {
  const approval = await waitForApproval({ timeout: 600 });
  const seen = await step("after", () => approval.approved);
  return { approval, seen };
});
`;
const RUNS = 30;

/** A `sluice server` on `p` and a bearer token of its own for `operate`. */
async function serve(p: ChaosProject, name: string, procs: SluiceProcess[]) {
  const server = spawnSluice(["server", "--port", "0", "--db", p.db], p.root);
  procs.push(server);
  await server.waitFor(/API and UI: (http:\/\/127\.0\.0\.1:\d+)/, 60_000);
  const url = /API and UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())![1]!;
  const made = spawnSluice(["token", "create", "--db", p.db, "--scope", "operate", "--name", name], p.root);
  expect(await made.exited).toBe(0);
  const token = made.stdout().trim();
  return (method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(30_000),
    });
}

for (const kind of ["sqlite", "postgres"] as StoreKind[]) {
  it(`approval races: 3 concurrent decisions on each of ${RUNS} waiting runs (${kind})`, async () => {
    const started = Date.now();
    const p = await chaosProject(kind, { "f/race_gate.ts": GATE });
    const procs: SluiceProcess[] = [];
    try {
      const a = await serve(p, "ada", procs);
      const b = kind === "postgres" ? await serve(p, "bob", procs) : a;
      const ids = Array.from({ length: RUNS }, (_, i) => `gate-${i}`);
      for (const id of ids) {
        const res = await a("POST", "/api/runs", { workflow: "f/race_gate", payload: {}, id });
        expect(res.status, await res.clone().text()).toBe(201);
      }
      const end = Date.now() + 60_000;
      while (Date.now() < end && (await p.store.getRuns(ids)).some((r) => r.status !== "waiting"))
        await new Promise((r) => setTimeout(r, 100));
      expect((await p.store.getRuns(ids)).map((r) => r.status)).toEqual(ids.map(() => "waiting"));

      const decide = (call: typeof a, id: string, approve: boolean) =>
        call("POST", `/api/runs/${id}/approvals/waitForApproval`, { approve });
      const answers = await Promise.all(
        ids.map(async (id) => {
          const [x, y, z] = await Promise.all([decide(a, id, true), decide(b, id, false), decide(a, id, true)]);
          return { id, statuses: [x.status, y.status, z.status] };
        }),
      );
      await untilFinished(p.store, ids, 60_000);
      const runs = new Map((await p.store.getRuns(ids)).map((r) => [r.id, r]));

      let wrong = 0;
      let stuck = 0;
      for (const { id, statuses } of answers) {
        const winners = statuses.filter((s) => s === 200).length;
        const refused = statuses.filter((s) => s === 409).length;
        const run = runs.get(id);
        if (run?.status !== "succeeded") {
          stuck++;
          continue;
        }
        const result = JSON.parse(run.result!) as { approval: { approved: boolean }; seen: boolean };
        const events = await p.store.listApprovalEvents(id);
        const resolved = events.filter((e) => e.outcome === "resolved");
        // The winner's decision is the one the run saw: approve came through `a` (index 0, 2), reject through `b`.
        const winnerApproved = statuses[1] !== 200;
        if (
          winners !== 1 ||
          refused !== 2 ||
          resolved.length !== 1 ||
          events.filter((e) => e.outcome === "already-decided").length !== 2 ||
          result.approval.approved !== winnerApproved ||
          result.seen !== winnerApproved
        )
          wrong++;
      }
      const statuses = answers.flatMap((x) => x.statuses);
      const http5xx = statuses.filter((s) => s >= 500).length;
      record({
        fault: "approval races (3 concurrent decisions per run)",
        store: kind,
        injected: `${RUNS} runs × 3 decisions${kind === "postgres" ? " through 2 servers" : ""}: ${statuses.filter((s) => s === 200).length} won, ${statuses.filter((s) => s === 409).length} refused`,
        runs: RUNS,
        lost: RUNS - runs.size,
        stuck,
        failed: 0,
        wrong,
        duplicateEffects: 0,
        http5xx,
        seconds: Math.round((Date.now() - started) / 100) / 10,
      });
      expect({ lost: RUNS - runs.size, stuck, wrong, http5xx }).toEqual({ lost: 0, stuck: 0, wrong: 0, http5xx: 0 });
    } finally {
      await stopAll(procs);
    }
  });
}
