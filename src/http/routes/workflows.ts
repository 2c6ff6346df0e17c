/** `GET /api/workflows`, `GET /api/workflows/:name` (stats, recent runs), `GET /api/workflows/:name/diagram`. */
import type { Hono } from "hono";
import { UnknownWorkflowError } from "../../sdk/errors.js";
import { type Store, TERMINAL_STATUSES, type WorkflowInfo } from "../../store/types.js";
import type { ApiDiagram, ApiWorkflowDetail, ApiWorkflowSummary } from "../api-types.js";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";
import { unfinishedCounts, workflowStats } from "../stats.js";
import { errorDetailFor, runView, workflowView } from "../views.js";
import { listRuns } from "./runs.js";

/** Finished runs the stats are computed over at most. */
const STATS_SAMPLE = 500;

async function findWorkflow(store: Store, name: string): Promise<WorkflowInfo> {
  const all = await store.listWorkflows();
  const info = all.find((w) => w.name === name);
  if (!info)
    throw new UnknownWorkflowError(
      name,
      all.map((w) => w.name),
    );
  return info;
}

/** Registers the workflow routes. */
export function workflowRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  const { store } = deps.engine;

  app.get("/api/workflows", requireScope("read"), async (c) => {
    const errors = errorDetailFor(c.get("identity"));
    const workflows = await store.listWorkflows();
    const summaries: ApiWorkflowSummary[] = await Promise.all(
      workflows.map(async (w) => {
        const recent = await store.listRuns({ workflow: w.name, limit: 50 });
        const last = recent.find((r) => r.parentId === null);
        return { ...workflowView(w), lastRun: last ? runView(last, errors) : null };
      }),
    );
    return c.json({ workflows: summaries });
  });

  app.get("/api/workflows/:name", requireScope("read"), async (c) => {
    const info = await findWorkflow(store, c.req.param("name"));
    const [recent, finished, unfinished] = await Promise.all([
      listRuns(
        store,
        { filter: { workflow: info.name }, limit: 20, topLevel: true },
        errorDetailFor(c.get("identity")),
      ),
      store.listRuns({ workflow: info.name, status: [...TERMINAL_STATUSES], limit: STATS_SAMPLE * 4 }),
      store.listRuns({ workflow: info.name, status: ["pending", "running", "waiting"], limit: 10_000 }),
    ]);
    const topFinished = finished.filter((r) => r.parentId === null).slice(0, STATS_SAMPLE);
    const detail: ApiWorkflowDetail = {
      workflow: workflowView(info),
      stats: workflowStats(
        topFinished,
        unfinishedCounts(
          unfinished.filter((r) => r.parentId === null),
          deps.clock.now(),
        ),
      ),
      recentRuns: recent.runs,
    };
    return c.json(detail);
  });

  app.get("/api/workflows/:name/diagram", requireScope("read"), async (c) => {
    const info = await findWorkflow(store, c.req.param("name"));
    const view: ApiDiagram = await deps.diagrams.forWorkflow(info);
    return c.json(view);
  });
}
