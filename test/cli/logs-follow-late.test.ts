/**
 * `sluice logs --follow --since …` as the real binary against a separate `sluice dev`: `--since`
 * limits the first page only. While following, a line is printed once when it is stored, whatever
 * its `ts`: a worker's resent buffer carries the times its lines were logged, which can be older
 * than the cutoff or than lines already printed (such lines were filtered out while following, so
 * a user following never saw them). The lines are written as a worker writes them: through the
 * worker protocol's `logs` route, under a claim of a run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finished, type SluiceProcess, spawnSluice, startDev, stopDev } from "../helpers/processes.js";
import { delay } from "../helpers/tmp.js";

let root: string;
let dev: SluiceProcess;
let url: string;

async function post(path: string, body: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await res.json();
  expect(res.status, JSON.stringify(answer)).toBeLessThan(300);
  return answer;
}

beforeAll(async () => {
  ({ root, dev } = await startDev({ "sluice.json": "{}" }));
  url = /UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())![1]!;
  await post("/api/worker/workflows", { workflows: [{ name: "ext", maxAttempts: 1 }] });
});
afterAll(async () => {
  if (dev) await stopDev(dev);
});

/** A claimed run of `ext`: writes its log lines as a worker does. */
async function claimed(): Promise<{
  id: string;
  log: (lines: Array<{ message: string; ts: number }>) => Promise<void>;
}> {
  const enq = await finished(spawnSluice(["enqueue", "ext", "{}", "--json"], root));
  expect(enq.code, enq.err).toBe(0);
  const id = JSON.parse(enq.out).id as string;
  const { claims } = await post("/api/worker/claim", { workerId: "late-worker", workflows: ["ext"], waitMs: 5_000 });
  expect(claims.map((c: { runId: string }) => c.runId)).toEqual([id]);
  const token = claims[0].token as number;
  return {
    id,
    log: async (lines) => {
      const answer = await post(`/api/worker/runs/${id}/logs`, { token, attempt: 1, lines });
      expect(answer).toEqual({ accepted: lines.length });
    },
  };
}

const HOUR = 3_600_000;

describe("sluice logs --follow --since", () => {
  it("prints a line stored while following even when its ts is older than --since or than lines shown", async () => {
    const run = await claimed();
    const now = Date.now();
    // Before following: one line inside the window, one older than it (not asked for by --since 1h).
    await run.log([
      { message: "stored before, logged 2 h ago", ts: now - 2 * HOUR },
      { message: "stored before, logged now", ts: now },
    ]);
    const follow = spawnSluice(["logs", "--follow", "--since", "1h", "--json"], root);
    await follow.waitFor(/stored before, logged now/, 20_000);
    // A worker's resent buffer: lines logged 2 h ago (older than --since) and 10 min ago (older than
    // the line shown), stored now; then a line of now.
    await run.log([
      { message: "resent, logged 2 h ago", ts: now - 2 * HOUR },
      { message: "resent, logged 10 min ago", ts: now - 600_000 },
    ]);
    await run.log([{ message: "logged after", ts: Date.now() }]);
    await follow.waitFor(/logged after/, 20_000);
    // Past the follower's 5 s re-read window, so a line printed twice would show.
    await delay(6_000);
    follow.proc.kill("SIGTERM");
    expect(await follow.exited).toBe(0);
    expect(follow.stderr()).toBe("");
    const printed = follow
      .stdout()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { msg: string; runId: string; ts: string });
    expect(printed.map((l) => l.msg)).toEqual([
      "stored before, logged now",
      "resent, logged 2 h ago",
      "resent, logged 10 min ago",
      "logged after",
    ]);
    expect(printed.every((l) => l.runId === run.id)).toBe(true);
    // Printed with the time it was logged.
    expect(Date.parse(printed[1]!.ts)).toBe(now - 2 * HOUR);

    // Without --follow, --since still leaves out what was logged before the window, however late it was stored.
    const page = await finished(spawnSluice(["logs", "--since", "1h", "--run", run.id], root));
    expect(page.code, page.err).toBe(0);
    expect(page.out).not.toMatch(/logged 2 h ago/);
    expect(page.out).toMatch(/resent, logged 10 min ago\n.*logged after\n$/s);
  }, 90_000);
});
