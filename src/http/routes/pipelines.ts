/**
 * Pipeline routes (seed 001), served when a pipeline runtime is attached to the engine:
 *
 * - `GET /api/pipelines`: every folder's lineage graph with diagnostics, each write edge into a
 *   lake table with its column lineage: recorded by its last managed write, else inferred from
 *   the script's SQL (read)
 * - `GET /api/pipelines/status[?folder=f/demo][&decisionKind=skipped,dispatched][&decisionRun=<id>]`:
 *   last runs, open joins and debounce windows, partitions per asset, recent dispatch
 *   decisions, filtered by kind and run (read)
 * - `POST /api/pipelines/plan` `{folder, to?, from?, partition?, dryRun?}`: a selective run
 *   ("run up to here"; `from` may be any script) as a durable plan run (operate)
 * - `POST /api/pipelines/scripts/<script>/run` `{args?, partition?, cascade?}`: run one step,
 *   with its downstream unless `cascade: false` (operate)
 * - `POST /api/pipelines/webhook/<script>`: the script's webhook; the JSON body is its
 *   arguments and trigger object (operate; the script needs `// on webhook` and a row)
 * - `GET /api/pipelines/backfills[?folder=f/demo]`: recent backfills with their
 *   per-partition progress; `GET /api/pipelines/backfills/<id>`: one backfill (read)
 * - `POST /api/pipelines/backfills/<id>/cancel`: cancels a backfill gracefully (no new step
 *   starts, running steps finish, then it is cancelled; 202, in the background);
 *   `POST /api/pipelines/backfills/<id>/resume`: a new backfill that runs only what did
 *   not succeed (operate)
 */
import type { Hono } from "hono";
import { graphJson } from "../../pipeline/runtime/render.js";
import { graphLineage } from "../../pipeline/runtime/graph-lineage.js";
import { cancelBackfill } from "../../pipeline/runtime/backfill-cancel.js";
import { backfillProgress, isFinal } from "../../pipeline/runtime/backfill-progress.js";
import { startBackfillResume } from "../../pipeline/runtime/backfill-resume.js";
import { BACKFILL_WORKFLOW, type BackfillPayload } from "../../pipeline/runtime/backfill-workflow.js";
import { decodeValue } from "../../core/serde.js";
import type { PipelineHost } from "../../pipeline/runtime/host.js";
import { planSteps } from "../../pipeline/runtime/plan.js";
import { PLAN_WORKFLOW, type PlanPayload } from "../../pipeline/runtime/plan-workflow.js";
import { pipelineStatus } from "../../pipeline/runtime/status.js";
import { parseOutcomes } from "../../pipeline/runtime/decisions.js";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";
import { ConflictError, NotFoundError } from "../errors.js";
import { bodyObject, onlyFields, optString } from "../input.js";
import { readJsonBody } from "../json-body.js";

function hostOf(deps: AppDeps): PipelineHost {
  const host = deps.pipelines;
  if (!host)
    throw new NotFoundError(
      "pipelines are not attached to this server: run it with sluice dev or sluice server",
      "PIPELINES_UNAVAILABLE",
    );
  return host;
}

function folderOf(host: PipelineHost, name: string) {
  const folder = host.catalog().folder(name);
  if (!folder)
    throw new NotFoundError(
      `no pipeline in ${JSON.stringify(name)}; pipelines: ${
        host
          .catalog()
          .folders()
          .map((f) => f.folder)
          .join(", ") || "none"
      }`,
      "PIPELINE_FOLDER_NOT_FOUND",
    );
  return folder;
}

/** Registers the pipeline routes. */
export function pipelineRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  app.get("/api/pipelines", requireScope("read"), async (c) => {
    const folders = hostOf(deps).catalog().folders();
    const lineage = await graphLineage(deps.engine.store, folders);
    return c.json({ pipelines: folders.map((f) => graphJson(f, lineage)) });
  });

  app.get("/api/pipelines/status", requireScope("read"), async (c) => {
    const host = hostOf(deps);
    const name = c.req.query("folder");
    const folders = name === undefined ? host.catalog().folders() : [folderOf(host, name)];
    const kind = c.req.query("decisionKind");
    const run = c.req.query("decisionRun");
    const filter = {
      ...(kind !== undefined && kind !== "" && { decisionKinds: parseOutcomes(kind) }),
      ...(run !== undefined && run !== "" && { decisionRun: run }),
    };
    const statuses = await Promise.all(folders.map((f) => pipelineStatus(deps.engine.store, f, filter)));
    return c.json(name === undefined ? { pipelines: statuses } : statuses[0]);
  });

  app.get("/api/pipelines/backfills", requireScope("read"), async (c) => {
    const folder = c.req.query("folder");
    const runs = await deps.engine.store.listRuns({ workflow: BACKFILL_WORKFLOW, limit: 200 });
    const mine = runs.filter((r) => folder === undefined || decodeValue<BackfillPayload>(r.payload).folder === folder);
    const backfills = [];
    for (const r of mine.slice(0, 20)) backfills.push(await backfillProgress(deps.engine.store, r.id));
    return c.json({ backfills });
  });

  app.get("/api/pipelines/backfills/:id", requireScope("read"), async (c) =>
    c.json(await backfillProgress(deps.engine.store, c.req.param("id"))),
  );

  app.post("/api/pipelines/backfills/:id/cancel", requireScope("operate"), async (c) => {
    const id = c.req.param("id");
    const before = await backfillProgress(deps.engine.store, id);
    if (isFinal(before.status))
      throw new ConflictError(
        "PIPELINE_BACKFILL_FINISHED",
        `backfill ${id} had already finished (${before.status}); nothing to cancel`,
      );
    const by = c.get("identity")?.name;
    const reason = `cancelled through the API${by ? ` by ${by}` : ""}`;
    // Graceful: running steps may take a while to finish, so the request does not wait; the
    // flag is stored first, so plans start no new step even if this server stops meanwhile.
    const done = cancelBackfill(
      { store: deps.engine.store, cancel: (run, why) => deps.engine.cancel(run, why) },
      id,
      reason,
    );
    done.catch((err: unknown) =>
      console.error(`sluice http: cancelling backfill ${id} failed: ${(err as Error)?.stack ?? String(err)}`),
    );
    return c.json({ id, cancelling: true, status: before.status }, 202);
  });

  app.post("/api/pipelines/backfills/:id/resume", requireScope("operate"), async (c) => {
    hostOf(deps);
    const id = c.req.param("id");
    const next = await startBackfillResume(
      deps.engine.store,
      (w, p) => deps.engine.enqueueRun(w, p, { createdBy: c.get("identity")?.name ?? undefined }),
      id,
    );
    return c.json({ id: next, resumeOf: id }, 202);
  });

  app.post("/api/pipelines/plan", requireScope("operate"), async (c) => {
    const host = hostOf(deps);
    const body = bodyObject(await readJsonBody(c, deps.limits), '{"folder": "f/demo", "to": ["transform"]}');
    onlyFields(body, ["folder", "to", "from", "partition", "dryRun"]);
    const folder = folderOf(host, optString(body, "folder") ?? "");
    const to = body.to === undefined ? undefined : Array.isArray(body.to) ? body.to.map(String) : String(body.to);
    const from = optString(body, "from");
    const partition = optString(body, "partition");
    const plan = planSteps(folder, {
      ...(to !== undefined && { to }),
      ...(from !== undefined && { from }),
      allowAnyStart: true,
    });
    const broken = plan.steps.filter((step) => folder.broken.has(step));
    if (broken.length > 0)
      throw new ConflictError(
        "PIPELINE_INVALID",
        `pipeline ${folder.folder}: ${broken.map((step) => `${step} is not loaded: ${folder.broken.get(step)}`).join("; ")}`,
      );
    if (body.dryRun === true)
      return c.json({ folder: folder.folder, ...plan, partition: partition ?? null, run: null });
    const payload: PlanPayload = {
      folder: folder.folder,
      steps: plan.steps,
      ...(partition !== undefined && { partition }),
    };
    const handle = await deps.engine.enqueueRun(PLAN_WORKFLOW, payload, {
      createdBy: c.get("identity")?.name ?? undefined,
    });
    return c.json({ folder: folder.folder, ...plan, partition: partition ?? null, run: handle.id }, 202);
  });

  app.post("/api/pipelines/scripts/:script{.+}/run", requireScope("operate"), async (c) => {
    const host = hostOf(deps);
    const body = bodyObject(
      await readJsonBody(c, deps.limits),
      '{"args": {}, "partition": "2026-05-16", "cascade": true}',
    );
    onlyFields(body, ["args", "partition", "cascade"]);
    const args = bodyObject(body.args, '{"args": {"limit": 10}}');
    const partition = optString(body, "partition");
    const by = c.get("identity")?.name;
    const handle = await host.runScript(c.req.param("script") ?? "", args, {
      cascade: body.cascade !== false,
      ...(by && { createdBy: by }),
      ...(partition !== undefined && { partition }),
    });
    return c.json({ run: handle.id }, 202);
  });

  app.post("/api/pipelines/webhook/:script{.+}", requireScope("operate"), async (c) => {
    const host = hostOf(deps);
    const body = await readJsonBody(c, deps.limits);
    const handle = await host.webhook(c.req.param("script") ?? "", body ?? {});
    return c.json({ run: handle.id }, 202);
  });
}
