/**
 * Resume links through the worker protocol (`POST /api/worker/runs/{id}/resume-urls`),
 * in-process on a real SQLite engine without a worker of its own: an external worker asks
 * for the links of its next approval, parks on the approval, and the links decide it.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEngine, type Engine } from "../../src/index.js";
import { createApp, type SluiceApp } from "../../src/http/app.js";
import { postJson } from "../helpers/post-json.js";
import { ApiTokens } from "../../src/http/auth/tokens.js";
import { openSqliteStore, type SqliteStore } from "../../src/store/sqlite/store.js";
import { delay, tempDir } from "../helpers/tmp.js";

let engine: Engine;
let store: SqliteStore;
let app: SluiceApp;
let worker: string;

beforeAll(async () => {
  const dir = tempDir("sluice-proto-links-");
  store = openSqliteStore({ path: join(dir, "sluice.db"), pollMs: 20 });
  engine = createEngine({ store, worker: false, scheduler: { tickMs: 50 }, baseUrl: "http://links.example:7777" });
  await engine.start();
  app = createApp({ engine, auth: { mode: "tokens" }, uiDir: null });
  worker = (await new ApiTokens(store).create({ name: "go-worker", scope: "worker" })).token;
  const reg = await json("/api/worker/workflows", { workflows: [{ name: "expense", maxAttempts: 2 }] });
  expect(reg.status).toBe(200);
});
afterAll(async () => {
  await engine?.stop({ drainMs: 100 });
  await store?.close();
});

const json = (path: string, body: unknown, token: string | null = worker) => postJson(app, path, body, { token });
const enqueue = async () =>
  (await json("/api/runs", { workflow: "expense", payload: { cents: 4200 } })).body.run.id as string;
const claim = async () =>
  (await json("/api/worker/claim", { workerId: "links-test", workflows: ["expense"], waitMs: 5_000 })).body
    .claims as any[];
const approvalStep = (key: string, position: number) => ({
  key,
  kind: "approval",
  status: "pending",
  position,
  value: { form: null, selfApproval: true, timeout: 600 },
  wakeAfterMs: 600_000,
});
/** The path and query of a link, to send to the in-process app. */
const local = (url: string) => url.replace("http://links.example:7777", "");

describe("resume links for external workers", () => {
  it("signs links of the next approval; the resume link approves it and the run is claimable again", async () => {
    const id = await enqueue();
    const [c1] = await claim();
    const links = await json(`/api/worker/runs/${id}/resume-urls`, { token: c1.token, approver: "alice" });
    expect(links.status, JSON.stringify(links.body)).toBe(200);
    const enc = encodeURIComponent(id);
    expect(links.body.approvalPage).toMatch(
      new RegExp(`^http://links\\.example:7777/approve/${enc}/waitForApproval\\?token=`),
    );
    expect(links.body.resume).toMatch(
      new RegExp(`^http://links\\.example:7777/api/runs/${enc}/approvals/waitForApproval/resume\\?token=`),
    );
    expect(links.body.cancel).toContain("/approvals/waitForApproval/cancel?token=");
    const parked = await json(`/api/worker/runs/${id}/park`, {
      token: c1.token,
      steps: [approvalStep("waitForApproval", 0)],
      wakeAfterMs: 600_000,
    });
    expect(parked.status).toBe(200);
    // The link is its own credential: no bearer token.
    const approved = await json(local(links.body.resume), { reason: "fine" }, null);
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({ runId: id, key: "waitForApproval", approved: true });
    const [c2] = await claim();
    expect(c2.runId).toBe(id);
    expect(c2.steps).toEqual([
      expect.objectContaining({
        key: "waitForApproval",
        status: "done",
        value: expect.objectContaining({ value: { reason: "fine" }, approved: true }),
      }),
    ]);
    // A link is bound to its action and wait: the cancel link of a decided wait is refused.
    const again = await json(local(links.body.cancel), undefined, null);
    expect(again.status).toBeGreaterThanOrEqual(400);
    await json(`/api/worker/runs/${id}/finish`, { token: c2.token, outcome: "succeeded", result: null });
  });

  it("the cancel link of the second approval (waitForApproval#2) rejects that one", async () => {
    const id = await enqueue();
    const [c1] = await claim();
    const links = await json(`/api/worker/runs/${id}/resume-urls`, { token: c1.token, key: "waitForApproval#2" });
    expect(links.status).toBe(200);
    expect(links.body.cancel).toContain("/approvals/waitForApproval%232/cancel?token=");
    await json(`/api/worker/runs/${id}/park`, {
      token: c1.token,
      steps: [approvalStep("waitForApproval#2", 1)],
      wakeAfterMs: 600_000,
    });
    // A link signed for one wait does not decide another: the first wait's key with this token is refused.
    const wrongKey = await json(
      local(links.body.cancel.replace("waitForApproval%232", "waitForApproval")),
      undefined,
      null,
    );
    expect(wrongKey.status).toBe(403);
    expect(wrongKey.body.error.code).toBe("RESUME_TOKEN_INVALID");
    const rejected = await json(local(links.body.cancel), undefined, null);
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
    expect(rejected.body).toMatchObject({ key: "waitForApproval#2", approved: false });
    const [c2] = await claim();
    expect(c2.steps).toEqual([
      expect.objectContaining({
        key: "waitForApproval#2",
        status: "done",
        value: expect.objectContaining({ approved: false }),
      }),
    ]);
    await json(`/api/worker/runs/${id}/finish`, { token: c2.token, outcome: "cancelled", reason: "rejected" });
  });

  it("refuses a stale token (409 LEASE_LOST), a key that is not an approval's, a missing token and a worker scope below worker", async () => {
    const id = await enqueue();
    const [c1] = await claim();
    const badKey = await json(`/api/worker/runs/${id}/resume-urls`, { token: c1.token, key: "charge" });
    expect(badKey.status).toBe(400);
    expect(badKey.body.error.message).toMatch(/waitForApproval/);
    const noToken = await json(`/api/worker/runs/${id}/resume-urls`, {});
    expect(noToken.status).toBe(400);
    expect(noToken.body.error.message).toMatch(/token/);
    const unknownField = await json(`/api/worker/runs/${id}/resume-urls`, { token: c1.token, ttl: 5 });
    expect(unknownField.status).toBe(400);
    const operate = (await new ApiTokens(store).create({ name: "olivia", scope: "operate" })).token;
    expect((await json(`/api/worker/runs/${id}/resume-urls`, { token: c1.token }, operate)).status).toBe(403);
    await json(`/api/worker/runs/${id}/finish`, { token: c1.token, outcome: "succeeded", result: 1 });
    await delay(10);
    const stale = await json(`/api/worker/runs/${id}/resume-urls`, { token: c1.token });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("LEASE_LOST");
  });
});
