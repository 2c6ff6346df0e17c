/** `POST /api/signals`: wake the runs waiting on an event. */
import type { Hono } from "hono";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";
import { bodyObject, onlyFields, reqString } from "../input.js";
import { readJsonBody } from "../json-body.js";

/** Registers the signal route. */
export function signalRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  app.post("/api/signals", requireScope("operate"), async (c) => {
    const body = bodyObject(
      await readJsonBody(c, deps.limits),
      '{"event": "order-paid", "payload": {"orderId": "ord_123"}}',
    );
    onlyFields(body, ["event", "payload"]);
    const event = reqString(body, "event", '"order-paid"');
    const woke = await deps.engine.signal(event, body.payload);
    return c.json({ event, woke });
  });
}
