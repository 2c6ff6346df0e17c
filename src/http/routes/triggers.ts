/**
 * Native trigger routes (`sluice dev`, `sluice server`):
 *
 * - `GET /api/triggers`: every trigger row of the project with its state (status, consuming
 *   server, messages, last message, last run, last error), and apart, `pipelineTriggers`: the
 *   schedule and webhook rows of its pipelines' `pipeline.json` (read)
 * - `POST /api/triggers/<id>/pause`, `POST /api/triggers/<id>/resume`: the consumer stops
 *   or starts again within a tick; messages wait at their source meanwhile (operate)
 */
import type { Hono } from "hono";
import { TriggerError } from "../../triggers/errors.js";
import { listTriggers, setTriggerPaused } from "../../triggers/runtime/list.js";
import { stepTriggers } from "../../pipeline/runtime/step-triggers.js";
import { engineEnqueue } from "../../triggers/runtime/targets.js";
import { acceptUpload } from "../../triggers/runtime/upload.js";
import { acceptWebhook } from "../../triggers/runtime/webhook.js";
import type { KindOptions, RowKind, UploadOptions } from "../../triggers/kinds.js";
import { readBodyBytes } from "../json-body.js";
import type { TriggerSpec } from "../../triggers/spec.js";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";
import { stepTriggerRows } from "../step-trigger-rows.js";

function specsOf(deps: AppDeps): readonly TriggerSpec[] {
  return deps.triggers?.specs() ?? [];
}

/** The row `id` of `kind`. @throws TriggerError `TRIGGER_NOT_FOUND` naming the rows of that kind */
function rowOf(deps: AppDeps, id: string, kind: RowKind): TriggerSpec {
  const spec = specsOf(deps).find((s) => s.id === id && s.kind === kind);
  if (spec) return spec;
  const others = specsOf(deps).filter((s) => s.kind === kind);
  throw new TriggerError(
    "TRIGGER_NOT_FOUND",
    `no ${kind} trigger ${JSON.stringify(id)}; ${kind} triggers: ${others.map((s) => s.id).join(", ") || "none"}`,
  );
}

/** Registers the trigger routes. */
export function triggerRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  app.get("/api/triggers", requireScope("read"), async (c) =>
    c.json({
      triggers: await listTriggers(deps.engine.store, specsOf(deps)),
      pipelineTriggers: deps.pipelines
        ? stepTriggerRows(
            stepTriggers(deps.pipelines.catalog().folders()),
            await deps.engine.store.listSchedules(),
            deps.clock.now(),
          )
        : [],
    }),
  );
  app.post("/api/triggers/:id{.+}/upload", requireScope("operate"), async (c) => {
    const spec = rowOf(deps, c.req.param("id"), "data_upload");
    const host = deps.pipelines;
    if (!host)
      throw new TriggerError(
        "TRIGGER_CONSUMER_FAILED",
        "uploads need the project's object store: run sluice dev or sluice server",
      );
    const bytes = await readBodyBytes(c, (spec.options as UploadOptions).maxBytes);
    const result = await acceptUpload(
      { store: deps.engine.store, objects: (await host.assets()).objects, enqueue: engineEnqueue(deps.engine, host) },
      spec,
      {
        name: c.req.query("name") ?? "",
        bytes,
        contentType: c.req.header("content-type") ?? "application/octet-stream",
      },
    );
    return c.json(result, result.deduplicated ? 200 : 201);
  });

  app.post("/api/triggers/:id{.+}/webhook", requireScope("operate"), async (c) => {
    const spec = rowOf(deps, c.req.param("id"), "webhook");
    const bytes = await readBodyBytes(c, (spec.options as KindOptions["webhook"]).maxBytes);
    const result = await acceptWebhook(
      { store: deps.engine.store, enqueue: engineEnqueue(deps.engine, deps.pipelines ?? null) },
      spec,
      { bytes, headers: c.req.header() },
    );
    return c.json(result, result.deduplicated ? 200 : 202);
  });

  for (const action of ["pause", "resume"] as const)
    app.post(`/api/triggers/:id{.+}/${action}`, requireScope("operate"), async (c) => {
      const id = c.req.param("id");
      const changed = await setTriggerPaused(deps.engine.store, specsOf(deps), id, action === "pause");
      return c.json({ id, paused: action === "pause", changed });
    });
}
