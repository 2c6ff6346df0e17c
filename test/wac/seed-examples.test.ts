/**
 * Every TypeScript example of seed 000 (examples/f/...), run end to end through the
 * loader and an embedded worker, to the result the seed describes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeValue } from "../../src/core/serde.js";
import { verifyResumeToken } from "../../src/core/resume-token.js";
import type { RunRecord } from "../../src/store/types.js";
import { type ExamplesHarness, startExamples } from "../helpers/wac-harness.js";

let h: ExamplesHarness;
beforeAll(async () => {
  h = await startExamples();
});
afterAll(async () => {
  await h?.close();
});

const result = (run: RunRecord) => decodeValue<any>(run.result);
const children = async (run: RunRecord) => (await h.engine.store.listRuns({ parentId: run.id, limit: 1000 })).reverse();
async function logsOfTree(run: RunRecord): Promise<string[]> {
  const kids = await children(run);
  const all = await Promise.all([run, ...kids].map((r) => h.engine.store.getLogs(r.id)));
  await h.engine.committer.drain();
  return all.flat().map((l) => l.message);
}

describe("seed 000 examples", () => {
  it("Quickstart: fetch, transform, sleep server-side, notify", async () => {
    const run = await h.runToEnd("f/wac/quickstart", { url: `${h.http}/data` });
    expect(run.status).toBe("succeeded");
    expect(result(run)).toEqual({ count: 7, summary: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }, { id: 5 }] });
    const kids = await children(run);
    expect(kids.map((k) => k.task)).toEqual(["fetchData", "transform", "notify"]);
    expect(kids.every((k) => k.status === "succeeded")).toBe(true);
    const steps = await h.engine.store.getSteps(run.id);
    expect(steps.map((s) => [s.key, s.kind])).toEqual([
      ["started_at", "step"],
      ["fetchData", "task"],
      ["transform", "task"],
      ["sleep", "sleep"],
      ["notify", "task"],
    ]);
    const startedAt = decodeValue<string>(steps[0]!.value);
    expect(await h.engine.store.getLogs(kids[2]!.id)).toMatchObject([
      { message: `Sending notification: Processed 7 items since ${startedAt}` },
    ]);
  });

  it("workflow(): payload mapped to parameters by name", async () => {
    expect(result(await h.runToEnd("f/wac/workflow_basic", { x: 2, y: 3 }))).toBe(5);
  });

  it("task(): each call is a child run (10, 6, 16)", async () => {
    const run = await h.runToEnd("f/wac/task_basic", {});
    expect(result(run)).toBe(16);
    const kids = await children(run);
    expect(kids.map((k) => [k.task, k.parentKey, decodeValue(k.result)])).toEqual([
      ["double", "double", 10],
      ["double", "double#2", 6],
      ["add", "add", 16],
    ]);
  });

  it("task() with options routes, prioritises, limits and caches the child", async () => {
    const run = await h.runToEnd("f/wac/task_options", {});
    expect(result(run)).toBe(168);
    const [heavy, highmem] = await children(run);
    expect(heavy).toMatchObject({
      queue: "gpu",
      priority: 10,
      concurrency: { key: "my_key", limit: 5, windowMs: 60_000 },
    });
    expect(heavy!.cacheKey).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(heavy!.options!)).toEqual({ timeoutMs: 600_000 });
    expect(highmem).toMatchObject({ queue: "highmem" });
    // The same task with the same argument within cache_ttl: answered from the cache, no new child.
    const again = await h.runToEnd("f/wac/task_options", {});
    const againKids = await children(again);
    expect(againKids.map((k) => k.queue)).toEqual(["highmem"]);
    expect((await h.engine.store.getSteps(again.id)).find((s) => s.key === "double")).toMatchObject({
      status: "done",
      value: "84",
      childId: heavy!.id,
    });
  });

  it("step(): values computed once and stable across replays", async () => {
    const run = await h.runToEnd("f/wac/step", {});
    const steps = await h.engine.store.getSteps(run.id);
    const orderId = decodeValue<string>(steps.find((s) => s.key === "order_id")!.value);
    const ts = decodeValue<string>(steps.find((s) => s.key === "timestamp")!.value);
    expect(orderId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result(run)).toEqual({ orderId, ts, status: "processed" });
  });

  it("Promise.all: three fetches, then three enrichments, in parallel", async () => {
    const run = await h.runToEnd("f/wac/parallel_promise_all", {});
    expect(result(run)).toEqual([1, 2, 3].map((id) => ({ id, name: `User ${id}`, enriched: true })));
    const kids = await children(run);
    expect(kids.map((k) => k.parentKey)).toEqual([
      "fetchUser",
      "fetchUser#2",
      "fetchUser#3",
      "enrichUser",
      "enrichUser#2",
      "enrichUser#3",
    ]);
  });

  it("parallel(): results in input order, with and without a concurrency limit", async () => {
    const run = await h.runToEnd("f/wac/parallel_helper", {});
    const doubled = [2, 4, 6, 8, 10, 12, 14, 16, 18, 20];
    expect(result(run)).toEqual({ results: doubled, batched: doubled });
    expect(await children(run)).toHaveLength(20);
  });

  it("sleep(3600): parks for an hour of (skipped) time between two reminders", async () => {
    const before = h.clock.now();
    const run = await h.runToEnd("f/wac/sleep", { email: "ana@example.com" });
    expect(result(run)).toBe("done");
    expect(h.clock.now() - before).toBeGreaterThanOrEqual(3_600_000);
    expect(await logsOfTree(run)).toEqual(["Reminder sent to ana@example.com", "Reminder sent to ana@example.com"]);
  });

  it("approval with selfApproval: false refuses the creator, accepts another user, and rejection returns early", async () => {
    const approved = await h.runToEnd(
      "f/wac/approval",
      { env: "prod" },
      {
        createdBy: "alice",
        onWaiting: async (r) => {
          const self = await h.engine.decideApproval({ runId: r.id, approve: true, actor: "alice", via: "test" });
          expect(self.outcome).toBe("forbidden");
          expect(
            (await h.engine.decideApproval({ runId: r.id, approve: true, actor: "bob", via: "test" })).outcome,
          ).toBe("resolved");
        },
      },
    );
    expect(result(approved)).toBe("deployed to prod");
    const rejected = await h.runToEnd(
      "f/wac/approval",
      { env: "prod" },
      {
        createdBy: "alice",
        onWaiting: async (r) =>
          void (await h.engine.decideApproval({ runId: r.id, approve: false, actor: "carol", via: "test" })),
      },
    );
    expect(result(rejected)).toBe("Deployment rejected by carol");
    expect((await h.engine.store.listApprovalEvents(approved.id)).map((e) => [e.actor, e.outcome])).toEqual([
      ["alice", "forbidden"],
      ["bob", "resolved"],
    ]);
  });

  it("approval with a form: the submitted values come back", async () => {
    const run = await h.runToEnd(
      "f/wac/approval_form",
      {},
      {
        onWaiting: async (r) => {
          const bad = await h.engine.decideApproval({
            runId: r.id,
            approve: true,
            value: { environment: "moon" },
            actor: "bob",
            via: "test",
          });
          expect(bad).toMatchObject({
            outcome: "invalid",
            problems: ['"environment" must be one of "staging", "production"'],
          });
          await h.engine.decideApproval({
            runId: r.id,
            approve: true,
            value: { reason: "LGTM", environment: "production" },
            actor: "bob",
            via: "test",
          });
        },
      },
    );
    expect(result(run)).toEqual({ reason: "LGTM", environment: "production" });
    expect(await logsOfTree(run)).toEqual(["LGTM", "production"]);
    expect((await h.engine.store.listApprovalEvents(run.id)).map((e) => [e.actor, e.outcome])).toEqual([
      ["bob", "invalid"],
      ["bob", "resolved"],
    ]);
  });

  it("approval with a full JSON Schema: required fields are enforced", async () => {
    const run = await h.runToEnd(
      "f/wac/approval_schema",
      {},
      {
        onWaiting: async (r) => {
          expect(
            (
              await h.engine.decideApproval({
                runId: r.id,
                approve: true,
                value: { environment: "staging" },
                actor: "bob",
                via: "test",
              })
            ).problems,
          ).toEqual(['"reason" is required']);
          await h.engine.decideApproval({
            runId: r.id,
            approve: true,
            value: { reason: "ok", environment: "staging" },
            actor: "bob",
            via: "test",
          });
        },
      },
    );
    expect(result(run)).toEqual({ value: { reason: "ok", environment: "staging" }, approver: "bob", approved: true });
  });

  it("getResumeUrls(): signed links bound to the next approval wait; a timeout returns approved: false", async () => {
    let urls: { approvalPage: string; resume: string; cancel: string } | undefined;
    const approved = await h.runToEnd(
      "f/wac/resume_urls",
      {},
      {
        onWaiting: async (r) => {
          const steps = await h.engine.store.getSteps(r.id);
          urls = decodeValue(steps.find((s) => s.key === "get_urls")!.value);
          const token = decodeURIComponent(new URL(urls!.resume).searchParams.get("token")!);
          const secret = await h.engine.resumeSecret();
          expect(
            verifyResumeToken(secret, token, { runId: r.id, key: "waitForApproval", action: "resume" }, Date.now()),
          ).toMatchObject({ runId: r.id });
          await h.engine.decideApproval({ runId: r.id, approve: true, actor: "dana", via: "link" });
        },
      },
    );
    expect(urls!.approvalPage).toContain(`/approve/${approved.id}/waitForApproval?token=`);
    expect(await logsOfTree(approved)).toEqual([`Slack: ${urls!.approvalPage}`]);
    expect(result(approved)).toEqual({ value: null, approver: "dana", approved: true });
    // Nobody answers: a day of skipped time later the wait ends with approved: false.
    const timedOut = await h.runToEnd(
      "f/wac/resume_urls",
      {},
      {
        onWaiting: () => {
          h.clock.advance(86_400_000 + 1);
          h.engine.events.emit("work");
        },
      },
    );
    expect(result(timedOut)).toEqual({ value: null, approver: null, approved: false });
    const late = await h.engine.decideApproval({ runId: timedOut.id, approve: true, actor: "dana", via: "link" });
    expect(late.outcome).not.toBe("resolved");
  });

  it("error handling: a failed task is caught, and its message passed to a fallback", async () => {
    const bad = await h.runToEnd("f/wac/error_handling", { data: "bad" });
    expect(result(bad)).toBe("fallback result for: Invalid data");
    expect(await logsOfTree(bad)).toEqual(["Task failed: Invalid data"]);
    const good = await h.runToEnd("f/wac/error_handling", { data: "good" });
    expect(result(good)).toBe("processed: good");
  });

  it("complete example: parallel fetch and process, approval, save, sleep", async () => {
    const run = await h.runToEnd(
      "f/wac/complete",
      { baseUrl: `${h.http}/page`, pageCount: 7 },
      {
        onWaiting: async (r) =>
          void (await h.engine.decideApproval({ runId: r.id, approve: true, actor: "erin", via: "test" })),
      },
    );
    const out = result(run);
    expect(out).toMatchObject({ saved: 14, approvedBy: "erin" });
    expect(out.runId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await children(run)).filter((k) => k.task === "fetchPage")).toHaveLength(7);
    const rejected = await h.runToEnd(
      "f/wac/complete",
      { baseUrl: `${h.http}/page`, pageCount: 2 },
      {
        onWaiting: async (r) =>
          void (await h.engine.decideApproval({ runId: r.id, approve: false, actor: "frank", via: "test" })),
      },
    );
    expect(result(rejected)).toMatchObject({ status: "rejected", approver: "frank" });
  });

  it("ETL: extract from several APIs, transform every record, load in one batch", async () => {
    const run = await h.runToEnd("f/wac/etl", { endpoints: [`${h.http}/api/a`, `${h.http}/api/b`, `${h.http}/api/c`] });
    expect(result(run)).toEqual({ loaded: 6 });
    expect(await logsOfTree(run)).toEqual(["Loading 6 records"]);
  });

  it("deployment gate: tests, staging, approval link, production", async () => {
    const run = await h.runToEnd(
      "f/wac/deployment_gate",
      { branch: "main" },
      {
        onWaiting: async (r) =>
          void (await h.engine.decideApproval({ runId: r.id, approve: true, actor: "gina", via: "test" })),
      },
    );
    expect(result(run)).toEqual({
      status: "deployed",
      staging: { url: "https://staging.example.com" },
      production: { url: "https://example.com" },
      approvedBy: "gina",
    });
    const logs = await logsOfTree(run);
    expect(logs.some((l) => /^Approve production deploy: http:\/\/127\.0\.0\.1:7777\/approve\//.test(l))).toBe(true);
  });

  it("retry with backoff: a failing API is retried after 30 s and 60 s of durable sleep", async () => {
    process.env.SUBMIT_FAILURES = "2";
    h.hits.delete("/submit");
    const run = await h.runToEnd("f/wac/retry_backoff", { payload: { order: 1 } });
    expect(result(run)).toEqual({ accepted: true, attempt: 3 });
    const kids = await children(run);
    expect(kids.map((k) => k.status)).toEqual(["failed", "failed", "succeeded"]);
    const sleeps = (await h.engine.store.getSteps(run.id)).filter((s) => s.kind === "sleep");
    expect(sleeps.map((s) => s.wakeAt! - s.startedAt)).toEqual([30_000, 60_000]);
    process.env.SUBMIT_FAILURES = "10";
    h.hits.delete("/submit");
    const exhausted = await h.runToEnd("f/wac/retry_backoff", { payload: { order: 2 }, maxRetries: 2 });
    expect(exhausted.status).toBe("failed");
    expect(exhausted.error).toMatchObject({ name: "TaskError", code: "TASK_FAILED", message: "API error: 503" });
    delete process.env.SUBMIT_FAILURES;
  });

  it("taskScript / taskFlow: existing scripts and workflows by path", async () => {
    const run = await h.runToEnd("f/wac/task_script_flow", {});
    expect(result(run)).toEqual({ result: { rows: 3 }, heavy: { trainedOn: 3, accuracy: 0.9 } });
    const kids = await children(run);
    expect(kids.map((k) => [k.workflow, k.queue])).toEqual([
      ["f/data_team/extract_users", "default"],
      ["f/data_team/etl_pipeline", "default"],
      ["f/ml/train_model", "gpu"],
    ]);
  });

  it("script modules: ./extract.ts and ./transform.ts from the workflow's __mod folder", async () => {
    const run = await h.runToEnd("f/my_folder/my_workflow", { url: `${h.http}/data` });
    expect(result(run)).toMatchObject({ count: 7 });
    expect((await children(run)).map((k) => k.workflow)).toEqual([
      "f/my_folder/my_workflow__mod/extract",
      "f/my_folder/my_workflow__mod/transform",
    ]);
  });
});
