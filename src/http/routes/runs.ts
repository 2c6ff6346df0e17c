/** `GET /api/runs` (filters, cursor pages), `POST /api/runs` (enqueue, `Idempotency-Key`), `GET /api/runs/:id`. */
import type { Hono } from "hono";
import { pendingApprovals } from "../../engine/approvals.js";
import { InvalidInputError, RunNotFoundError } from "../../sdk/errors.js";
import type { RunRecord, Store } from "../../store/types.js";
import type { ApiRunDetail, ApiRunList } from "../api-types.js";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";
import {
  bodyObject,
  onlyFields,
  optInt,
  optString,
  parseRunListQuery,
  parseTime,
  reqString,
  type RunListQuery,
} from "../input.js";
import { readJsonBody } from "../json-body.js";
import { parseConcurrency } from "../worker-protocol/messages.js";
import {
  approvalEventView,
  type ErrorDetail,
  errorDetailFor,
  pendingApprovalView,
  runView,
  stepView,
  traceLinkView,
} from "../views.js";

/** Children listed on a run's page at most. */
const MAX_CHILDREN = 1000;
/** Runs looked at per `topLevel` page at most (children are skipped). */
const MAX_SCAN = 5000;

/** Registers the run routes. */
export function runRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  const { engine } = deps;

  app.get("/api/runs", requireScope("read"), async (c) => {
    const query = parseRunListQuery(c.req.query());
    return c.json(await listRuns(engine.store, query, errorDetailFor(c.get("identity"))));
  });

  app.post("/api/runs", requireScope("operate"), async (c) => {
    const body = bodyObject(await readJsonBody(c, deps.limits), '{"workflow": "hello", "payload": {"name": "world"}}');
    onlyFields(body, ["workflow", "payload", "id", "runAt", "retries", "priority", "concurrency"]);
    const workflow = reqString(body, "workflow", '"hello"');
    const headerKey = c.req.header("idempotency-key");
    const bodyId = optString(body, "id");
    if (headerKey !== undefined && bodyId !== undefined && headerKey !== bodyId) {
      throw new InvalidInputError(`the Idempotency-Key header and "id" differ: send one of them (both name the run)`, {
        code: "INVALID_BODY",
      });
    }
    const handle = await engine.enqueueRun(workflow, body.payload === undefined ? {} : body.payload, {
      id: headerKey ?? bodyId,
      runAt: body.runAt === undefined || body.runAt === null ? undefined : parseTime(body.runAt, "runAt"),
      retries: optInt(body, "retries", 0, 1000),
      priority: optInt(body, "priority", -1_000_000, 1_000_000),
      concurrency: parseConcurrency(body.concurrency, "concurrency") ?? undefined,
      createdBy: c.get("identity")!.name,
      trace: traceHeaders(c.req.header("traceparent"), c.req.header("tracestate")),
    });
    const run = await engine.store.getRun(handle.id);
    if (!run) throw new RunNotFoundError(handle.id);
    return c.json(
      { run: runView(run, errorDetailFor(c.get("identity"))), deduplicated: handle.deduplicated },
      handle.deduplicated ? 200 : 201,
    );
  });

  app.get("/api/runs/:id", requireScope("read"), async (c) => {
    const id = c.req.param("id");
    const run = await engine.store.getRun(id);
    if (!run) throw new RunNotFoundError(id);
    const [steps, children, events] = await Promise.all([
      engine.store.getSteps(id),
      engine.store.listRuns({ parentId: id, limit: MAX_CHILDREN + 1 }),
      engine.store.listApprovalEvents(id),
    ]);
    const listed = children.slice(0, MAX_CHILDREN).reverse();
    const errors = errorDetailFor(c.get("identity"));
    const detail: ApiRunDetail = {
      run: runView(run, errors),
      steps: steps.map((s) => stepView(s, errors)),
      children: listed.map((r) => runView(r, errors)),
      childrenTruncated: children.length > MAX_CHILDREN,
      approvals: run.status === "waiting" ? pendingApprovals(steps).map(pendingApprovalView) : [],
      approvalEvents: events.map(approvalEventView),
      trace: traceLinkView(run.options, deps.traceUrl),
    };
    return c.json(detail);
  });
}

/** One page of runs, newest first, their errors at `errors`. */
export async function listRuns(store: Store, q: RunListQuery, errors: ErrorDetail): Promise<ApiRunList> {
  const view = (r: RunRecord) => runView(r, errors);
  if (!q.topLevel) {
    const rows = await store.listRuns({ ...q.filter, limit: q.limit + 1 });
    const page = rows.slice(0, q.limit);
    return { runs: page.map(view), nextCursor: rows.length > q.limit ? String(page[page.length - 1]!.seq) : null };
  }
  // Child tasks share their parent's workflow name; skip them, scanning a bounded number of rows.
  const found: RunRecord[] = [];
  let before = q.filter.beforeSeq;
  let scanned = 0;
  for (;;) {
    const batch = await store.listRuns({ ...q.filter, beforeSeq: before, limit: 500 });
    for (const r of batch) {
      scanned++;
      before = r.seq;
      if (r.parentId !== null) continue;
      if (found.length === q.limit) return { runs: found.map(view), nextCursor: String(found[found.length - 1]!.seq) };
      found.push(r);
    }
    if (batch.length < 500) return { runs: found.map(view), nextCursor: null };
    if (scanned >= MAX_SCAN) return { runs: found.map(view), nextCursor: before === undefined ? null : String(before) };
  }
}

/** The W3C trace context a caller sent (`traceparent`, `tracestate` headers): the run continues it. */
function traceHeaders(traceparent: string | undefined, tracestate: string | undefined) {
  if (!traceparent) return undefined;
  return tracestate ? { traceparent, tracestate } : { traceparent };
}
