/** `POST /api/signals`: wake the runs waiting on an event. */
import type { Hono } from "hono";
import { InvalidInputError } from "../../sdk/errors.js";
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
    onlyFields(body, ["event", "payload", "buffer"]);
    const event = reqString(body, "event", '"order-paid"');
    const buffer = body.buffer;
    if (buffer !== undefined && typeof buffer !== "string" && typeof buffer !== "number")
      throw new InvalidInputError(`"buffer" must be a duration such as "1h" or a number of milliseconds`, {
        code: "INVALID_BODY",
      });
    const { woken, buffered } = await deps.engine.sendSignal(
      event,
      body.payload,
      buffer === undefined ? {} : { buffer },
    );
    return c.json({ event, woke: woken, buffered });
  });
}
