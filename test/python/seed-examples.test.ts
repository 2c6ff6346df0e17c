/**
 * Every Python example of seed 000 (test/fixtures/python-wac, the seed's code unchanged),
 * run end to end through the loader, an embedded worker and a real python3, to the result the
 * seed describes. Durable sleeps are skipped with the harness's clock; fetches go to a local
 * HTTP server.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeValue } from "../../src/core/serde.js";
import { verifyResumeToken } from "../../src/core/resume-token.js";
import type { RunRecord } from "../../src/store/types.js";
import { REPO } from "../helpers/project.js";
import { type ExamplesHarness, startExamples } from "../helpers/wac-harness.js";

const ts = (rel: string) => readFileSync(join(REPO, "examples", rel), "utf8");

let h: ExamplesHarness;
beforeAll(async () => {
  h = await startExamples({
    from: join(REPO, "test", "fixtures", "python-wac"),
    files: {
      // The TypeScript script and workflows the Python task_script/task_flow example calls.
      "f/data_team/extract_users.ts": ts("f/data_team/extract_users.ts"),
      "f/data_team/etl_pipeline.ts": ts("f/data_team/etl_pipeline.ts"),
      "f/ml/train_model.ts": ts("f/ml/train_model.ts"),
      // And the other way round: a TypeScript workflow calling a Python script.
      "f/ts/calls_python.ts": [
        "import { taskScript, workflow } from 'windmill-client';",
        "export const main = workflow(async (a: number) => await taskScript('f/py_lib/add')({ a, b: 10 }));",
        "",
      ].join("\n"),
    },
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const result = (run: RunRecord) => decodeValue<any>(run.result);
const children = async (run: RunRecord) => (await h.engine.store.listRuns({ parentId: run.id, limit: 1000 })).reverse();
const steps = async (run: RunRecord) => h.engine.store.getSteps(run.id);
async function logsOfTree(run: RunRecord): Promise<string[]> {
  await h.engine.committer.drain();
  const kids = await children(run);
  const all = await Promise.all([run, ...kids].map((r) => h.engine.store.getLogs(r.id)));
  return all.flat().map((l) => l.message);
}
const approveAs =
  (actor: string, approve = true, value?: unknown) =>
  async (r: RunRecord) =>
    void (await h.engine.decideApproval({ runId: r.id, approve, actor, via: "test", value }));

describe("seed 000 Python examples", () => {
  it("Quickstart: fetch, transform, sleep server-side, notify", async () => {
    const run = await h.runToEnd("f/py/quickstart", { url: `${h.http}/data` });
    expect(run.status).toBe("succeeded");
    expect(result(run)).toEqual({ count: 7, summary: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }, { id: 5 }] });
    const kids = await children(run);
    expect(kids.map((k) => [k.task, k.status])).toEqual([
      ["fetch_data", "succeeded"],
      ["transform", "succeeded"],
      ["notify", "succeeded"],
    ]);
    const s = await steps(run);
    expect(s.map((x) => [x.key, x.kind])).toEqual([
      ["started_at", "step"],
      ["fetch_data", "task"],
      ["transform", "task"],
      ["sleep", "sleep"],
      ["notify", "task"],
    ]);
    const startedAt = decodeValue<string>(s[0]!.value);
    expect(await h.engine.store.getLogs(kids[2]!.id)).toMatchObject([
      { message: `Sending notification: Processed 7 items since ${startedAt}` },
    ]);
  });

  it("@workflow: arguments mapped by name; a missing or unknown argument is refused at enqueue", async () => {
    expect(result(await h.runToEnd("f/py/workflow_basic", { x: 2, y: 3 }))).toBe(5);
    expect(result(await h.runToEnd("f/py/ref_workflow", { x: 7 }))).toBe(7);
    await expect(h.engine.enqueueRun("f/py/workflow_basic", { x: 2 })).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
      message: expect.stringContaining('missing parameter "y"'),
    });
    await expect(h.engine.enqueueRun("f/py/workflow_basic", { x: 2, y: 3, z: 4 })).rejects.toMatchObject({
      code: "INVALID_ARGUMENTS",
      message: expect.stringContaining('unknown parameter "z"'),
    });
  });

  it("@task: each call is a child run (10, 6, 16), keys name, name#2", async () => {
    const run = await h.runToEnd("f/py/task_basic", {});
    expect(result(run)).toBe(16);
    expect((await children(run)).map((k) => [k.task, k.parentKey, decodeValue(k.result)])).toEqual([
      ["double", "double", 10],
      ["double", "double#2", 6],
      ["add", "add", 16],
    ]);
    expect(result(await h.runToEnd("f/py/ref_task", {}))).toEqual([42, 6]);
  });

  it("@task(path=, timeout=, tag=, cache_ttl=, priority=, concurrency_*=) routes, limits and caches the child", async () => {
    const run = await h.runToEnd("f/py/task_options", {});
    expect(result(run)).toBe(42);
    const [heavy] = await children(run);
    expect(heavy).toMatchObject({
      task: "heavy_compute",
      queue: "gpu",
      priority: 10,
      concurrency: { key: "my_key", limit: 5, windowMs: 60_000 },
    });
    expect(heavy!.cacheKey).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(heavy!.options!)).toEqual({ timeoutMs: 600_000 });
    // Same task, same arguments, within cache_ttl: answered from the cache, no new child.
    const again = await h.runToEnd("f/py/task_options", {});
    expect(result(again)).toBe(42);
    expect(await children(again)).toHaveLength(0);
  });

  it("step(): values computed once, stable across replays; sync and async callables", async () => {
    const run = await h.runToEnd("f/py/step", {});
    const s = await steps(run);
    const orderId = decodeValue<string>(s.find((x) => x.key === "order_id")!.value);
    const ts2 = decodeValue<string>(s.find((x) => x.key === "timestamp")!.value);
    expect(orderId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result(run)).toEqual({ order_id: orderId, ts: ts2, status: "processed" });
    const ref = result(await h.runToEnd("f/py/ref_step", {}));
    expect(typeof ref.ts).toBe("number");
    expect(ref.config).toEqual({ region: "eu" });
  });

  it("asyncio.gather: three fetches, then three enrichments, each trio written by one suspend", async () => {
    const run = await h.runToEnd("f/py/gather", {});
    expect(result(run)).toEqual([1, 2, 3].map((id) => ({ id, name: `User ${id}`, enriched: true })));
    const kids = await children(run);
    expect(kids.map((k) => k.parentKey)).toEqual([
      "fetch_user",
      "fetch_user#2",
      "fetch_user#3",
      "enrich_user",
      "enrich_user#2",
      "enrich_user#3",
    ]);
    // One suspend per gather: the three children of each gather were created together.
    expect(new Set(kids.slice(0, 3).map((k) => k.createdAt)).size).toBe(1);
    expect(new Set(kids.slice(3).map((k) => k.createdAt)).size).toBe(1);
  });

  it("parallel(): results in input order, with and without a concurrency limit", async () => {
    const run = await h.runToEnd("f/py/parallel", {});
    const doubled = [2, 4, 6, 8, 10, 12, 14, 16, 18, 20];
    expect(result(run)).toEqual({ results: doubled, batched: doubled });
    expect(await children(run)).toHaveLength(20);
    expect(result(await h.runToEnd("f/py/ref_parallel", {}))).toEqual([2, 3, 4, 5, 6, 7, 8]);
  });

  it("sleep(3600): parks for an hour of (skipped) time between two reminders", async () => {
    const before = h.clock.now();
    const run = await h.runToEnd("f/py/sleep", { email: "ana@example.com" });
    expect(result(run)).toBe("done");
    expect(h.clock.now() - before).toBeGreaterThanOrEqual(3_600_000);
    expect(await logsOfTree(run)).toEqual(["Reminder sent to ana@example.com", "Reminder sent to ana@example.com"]);
    expect(result(await h.runToEnd("f/py/ref_sleep", {}))).toBe("slept");
  });

  it("wait_for_approval(self_approval=False): the creator is refused, another user approves; rejection returns early", async () => {
    const approved = await h.runToEnd(
      "f/py/approval",
      { env: "prod" },
      {
        createdBy: "alice",
        onWaiting: async (r) => {
          const self = await h.engine.decideApproval({ runId: r.id, approve: true, actor: "alice", via: "test" });
          expect(self.outcome).toBe("forbidden");
          await approveAs("bob")(r);
        },
      },
    );
    expect(result(approved)).toBe("deployed to prod");
    const rejected = await h.runToEnd("f/py/approval", { env: "prod" }, { onWaiting: approveAs("carol", false) });
    expect(result(rejected)).toBe("Deployment rejected by carol");
  });

  it("wait_for_approval(form=...): fields as keys, or a full JSON Schema with required fields", async () => {
    const run = await h.runToEnd(
      "f/py/approval_form",
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
          expect(bad.outcome).toBe("invalid");
          await approveAs("bob", true, { reason: "LGTM", environment: "production" })(r);
        },
      },
    );
    expect(result(run)).toEqual({ reason: "LGTM", environment: "production" });
    expect(await logsOfTree(run)).toEqual(["LGTM", "production"]);
    const schema = await h.runToEnd(
      "f/py/approval_schema",
      {},
      {
        onWaiting: async (r) => {
          const missing = await h.engine.decideApproval({
            runId: r.id,
            approve: true,
            value: { environment: "staging" },
            actor: "bob",
            via: "test",
          });
          expect(missing.problems).toEqual(['"reason" is required']);
          await approveAs("bob", true, { reason: "ok", environment: "staging" })(r);
        },
      },
    );
    expect(result(schema)).toEqual({
      value: { reason: "ok", environment: "staging" },
      approver: "bob",
      approved: true,
    });
    const ref = await h.runToEnd(
      "f/py/ref_approval",
      {},
      { createdBy: "alice", onWaiting: approveAs("bob", true, { reason: "Urgent fix", priority: 1 }) },
    );
    expect(result(ref)).toEqual({ value: { reason: "Urgent fix", priority: 1 }, approver: "bob", approved: true });
  });

  it("get_resume_urls(): signed links bound to the next approval wait; a timeout returns approved: False", async () => {
    let urls: { approvalPage: string; resume: string; cancel: string } | undefined;
    const approved = await h.runToEnd(
      "f/py/resume_urls",
      {},
      {
        onWaiting: async (r) => {
          urls = decodeValue((await h.engine.store.getSteps(r.id)).find((s) => s.key === "get_urls")!.value);
          const token = decodeURIComponent(new URL(urls!.resume).searchParams.get("token")!);
          expect(
            verifyResumeToken(
              await h.engine.resumeSecret(),
              token,
              { runId: r.id, key: "waitForApproval", action: "resume" },
              Date.now(),
            ),
          ).toMatchObject({ runId: r.id });
          await approveAs("dana")(r);
        },
      },
    );
    expect(urls!.approvalPage).toContain(`/approve/${approved.id}/waitForApproval?token=`);
    expect(await logsOfTree(approved)).toEqual([`Slack: ${urls!.approvalPage}`]);
    expect(result(approved)).toEqual({ value: null, approver: "dana", approved: true });
    const timedOut = await h.runToEnd(
      "f/py/resume_urls",
      {},
      {
        onWaiting: () => {
          h.clock.advance(86_400_000 + 1);
          h.engine.events.emit("work");
        },
      },
    );
    expect(result(timedOut)).toEqual({ value: null, approver: null, approved: false });
    const ref = await h.runToEnd("f/py/ref_resume_urls", {});
    expect(result(ref).approvalPage).toContain(`/approve/${ref.id}/waitForApproval?token=`);
  });

  it("error handling: TaskError is caught, its message passed to a fallback; its fields are the child's", async () => {
    const bad = await h.runToEnd("f/py/error_handling", { data: "bad" });
    expect(result(bad)).toBe("fallback result for: Invalid data");
    expect(await logsOfTree(bad)).toContain("Task failed: Invalid data");
    const [risky] = await children(bad);
    expect(risky).toMatchObject({ task: "risky_operation", status: "failed" });
    expect(risky!.error).toMatchObject({ name: "Exception", message: "Invalid data" });
    expect(result(await h.runToEnd("f/py/error_handling", { data: "good" }))).toBe("processed: good");
    const ref = await h.runToEnd("f/py/ref_task_error", {});
    expect(result(ref)).toBe("handled");
    const [child] = await children(ref);
    const logs = (await h.engine.store.getLogs(ref.id)).map((l) => l.message);
    expect(logs.slice(0, 3)).toEqual(["cannot handle x", "risky_task", child!.id]);
    expect(logs[3]).toContain("'message': 'cannot handle x'");
  });

  it("complete example: parallel fetch and process, approval, save, sleep", async () => {
    const run = await h.runToEnd(
      "f/py/complete",
      { base_url: `${h.http}/page`, page_count: 7 },
      { onWaiting: approveAs("erin") },
    );
    const out = result(run);
    expect(out).toMatchObject({ saved: 14, approved_by: "erin" });
    expect(out.run_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await children(run)).filter((k) => k.task === "fetch_page")).toHaveLength(7);
    const rejected = await h.runToEnd(
      "f/py/complete",
      { base_url: `${h.http}/page`, page_count: 2 },
      { onWaiting: approveAs("frank", false) },
    );
    expect(result(rejected)).toMatchObject({ status: "rejected", approver: "frank" });
  });

  it("ETL: extract from several APIs, transform every record, load in one batch", async () => {
    const run = await h.runToEnd("f/py/etl", {
      endpoints: [`${h.http}/api/a`, `${h.http}/api/b`, `${h.http}/api/c`],
    });
    expect(result(run)).toEqual({ loaded: 6 });
    expect(await logsOfTree(run)).toEqual(["Loading 6 records"]);
  });

  it("deployment gate: tests, staging, approval link, production", async () => {
    const run = await h.runToEnd("f/py/deployment_gate", { branch: "main" }, { onWaiting: approveAs("gina") });
    expect(result(run)).toEqual({
      status: "deployed",
      staging: { url: "https://staging.example.com" },
      production: { url: "https://example.com" },
    });
    expect((await logsOfTree(run)).some((l) => /^Approve: http:\/\/127\.0\.0\.1:7777\/approve\//.test(l))).toBe(true);
  });

  it("retry with backoff: the failing API is retried after 30 s and 60 s of durable sleep; TaskError re-raised at the end", async () => {
    process.env.SUBMIT_FAILURES = "2";
    h.hits.delete("/submit");
    const run = await h.runToEnd("f/py/retry_backoff", { payload: { order: 1 } });
    expect(result(run)).toEqual({ accepted: true, attempt: 3 });
    expect((await children(run)).map((k) => k.status)).toEqual(["failed", "failed", "succeeded"]);
    const sleeps = (await steps(run)).filter((s) => s.kind === "sleep");
    expect(sleeps.map((s) => s.wakeAt! - s.startedAt)).toEqual([30_000, 60_000]);
    process.env.SUBMIT_FAILURES = "10";
    h.hits.delete("/submit");
    const exhausted = await h.runToEnd("f/py/retry_backoff", { payload: { order: 2 }, max_retries: 2 });
    expect(exhausted.status).toBe("failed");
    expect(exhausted.error).toMatchObject({ name: "TaskError", message: expect.stringContaining("HTTP 503") });
    delete process.env.SUBMIT_FAILURES;
  });

  it("task_script / task_flow: TypeScript scripts and workflows by path, and Python ones", async () => {
    const run = await h.runToEnd("f/py/task_script_flow", {});
    expect(result(run)).toEqual({ result: { rows: 3 }, heavy: { trainedOn: 3, accuracy: 0.9 } });
    expect((await children(run)).map((k) => [k.workflow, k.queue])).toEqual([
      ["f/data_team/extract_users", "default"],
      ["f/data_team/etl_pipeline", "default"],
      ["f/ml/train_model", "gpu"],
    ]);
    expect(result(await h.runToEnd("f/py/ref_task_script", {}))).toEqual({ extracted: "https://..." });
    expect(result(await h.runToEnd("f/py/ref_task_flow", {}))).toEqual({ rows: 3 });
  });

  it("a TypeScript workflow calls a Python script with taskScript", async () => {
    const run = await h.runToEnd("f/ts/calls_python", { a: 5 });
    expect(result(run)).toBe(15);
    const [child] = await children(run);
    expect(child).toMatchObject({ workflow: "f/py_lib/add", status: "succeeded" });
    expect(await h.engine.store.getLogs(child!.id)).toMatchObject([{ message: "adding 5 and 10" }]);
  });

  it("script modules: task_script('./extract.py') and ('./transform.py') from the workflow's __mod folder", async () => {
    const run = await h.runToEnd("f/my_folder/my_workflow", { url: `${h.http}/data` });
    expect(result(run)).toMatchObject({ count: 7 });
    expect((await children(run)).map((k) => k.workflow)).toEqual([
      "f/my_folder/my_workflow__mod/extract",
      "f/my_folder/my_workflow__mod/transform",
    ]);
  });
});
