/**
 * A webhook row of `sluice.json` (`{"name": "hook", "kind": "webhook", "target": "f/ops/report"}`):
 * `POST /api/triggers/<id>/webhook` turns the request body into a run of any runnable, mapped
 * like any trigger message (`format`, `args`, `idFrom`; `message.ts`), as Windmill gives each
 * script and flow a webhook URL. The run id derives from the `Idempotency-Key` header when the
 * caller sends one (a retried call finds its run instead of starting another), else from the
 * row's `idFrom`, else from a fresh id (every call its own run). Calls are counted in the
 * trigger's tally (`tally.ts`) like uploads, and a paused row refuses them.
 */
import { randomUUID } from "node:crypto";
import type { Store } from "../../store/types.js";
import { TriggerError } from "../errors.js";
import { type MessageRun, messageRun } from "../message.js";
import type { TriggerSpec } from "../spec.js";
import { pausedKey, shorten } from "../state.js";
import { tallyDelivery, tallyFailure } from "./tally.js";
import type { EnqueueMessage } from "./targets.js";

/** What {@link acceptWebhook} needs. */
export interface WebhookDeps {
  readonly store: Store;
  readonly enqueue: EnqueueMessage;
}

/** One webhook call. */
export interface WebhookCall {
  readonly bytes: Uint8Array;
  /** Request headers, lower-case names. Credentials are left out of the message. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The outcome of a call. */
export interface WebhookResult {
  readonly run: string;
  readonly deduplicated: boolean;
}

/** Headers never put in a run's message. */
const SECRET_HEADERS = new Set(["authorization", "cookie", "proxy-authorization"]);

/** The longest `Idempotency-Key` accepted. */
const MAX_KEY = 255;

/**
 * Enqueues the run of one webhook call; resolves once it is durable.
 * @throws TriggerError `TRIGGER_NOT_FOUND` (not a webhook row), `TRIGGER_PAUSED`,
 * `TRIGGER_MESSAGE_INVALID` (a body that does not map, a bad `Idempotency-Key`)
 */
export async function acceptWebhook(deps: WebhookDeps, spec: TriggerSpec, call: WebhookCall): Promise<WebhookResult> {
  if (spec.kind !== "webhook")
    throw new TriggerError("TRIGGER_NOT_FOUND", `trigger ${spec.id} is a ${spec.kind} trigger, not a webhook one`);
  if ((await deps.store.kvGet(pausedKey(spec.id))) !== null)
    throw new TriggerError(
      "TRIGGER_PAUSED",
      `trigger ${spec.id} is paused: resume it (sluice triggers resume ${spec.id})`,
    );
  const key = call.headers["idempotency-key"];
  if (key !== undefined && (key.trim() === "" || key.length > MAX_KEY))
    throw new TriggerError(
      "TRIGGER_MESSAGE_INVALID",
      `the Idempotency-Key header must be 1 to ${MAX_KEY} characters, e.g. the id of the event being sent`,
    );
  const headers = Object.fromEntries(Object.entries(call.headers).filter(([name]) => !SECRET_HEADERS.has(name)));
  let run: MessageRun;
  let done: Awaited<ReturnType<EnqueueMessage>>;
  try {
    run = messageRun(spec, {
      identity: key !== undefined ? `key:${key}` : `call:${randomUUID()}`,
      bytes: call.bytes,
      headers,
    });
    done = await deps.enqueue(spec, run);
  } catch (err) {
    // Shown as the trigger's last error (CLI, API, UI), as a consumer's failure is.
    await tallyFailure(deps.store, spec.id, { at: Date.now(), error: (err as Error).message });
    throw err;
  }
  await tallyDelivery(deps.store, spec.id, { at: Date.now(), message: shorten(run.envelope), runId: done.id });
  return { run: done.id, deduplicated: done.deduplicated };
}
