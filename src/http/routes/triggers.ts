/**
 * Native trigger routes (`sluice dev`, `sluice server`):
 *
 * - `GET /api/triggers`: every trigger row of the project with its state (status, consuming
 *   server, messages, last message, last run, last error) (read)
 * - `POST /api/triggers/<id>/pause`, `POST /api/triggers/<id>/resume`: the consumer stops
 *   or starts again within a tick; messages wait at their source meanwhile (operate)
 */
import type { Hono } from "hono";
import { listTriggers, setTriggerPaused } from "../../triggers/runtime/list.js";
import type { TriggerSpec } from "../../triggers/spec.js";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";

function specsOf(deps: AppDeps): readonly TriggerSpec[] {
  return deps.triggers?.specs() ?? [];
}

/** Registers the trigger routes. */
export function triggerRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  app.get("/api/triggers", requireScope("read"), async (c) =>
    c.json({ triggers: await listTriggers(deps.engine.store, specsOf(deps)) }),
  );
  for (const action of ["pause", "resume"] as const)
    app.post(`/api/triggers/:id{.+}/${action}`, requireScope("operate"), async (c) => {
      const id = c.req.param("id");
      const changed = await setTriggerPaused(deps.engine.store, specsOf(deps), id, action === "pause");
      return c.json({ id, paused: action === "pause", changed });
    });
}
