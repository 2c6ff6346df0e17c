/**
 * Reading and pausing triggers, for the CLI (`sluice triggers`) and the API: each row's
 * configuration joined with its pause flag and its consumer's last report.
 */
import type { Store } from "../../store/types.js";
import { TriggerError } from "../errors.js";
import { describeTrigger, type TriggerSpec } from "../spec.js";
import {
  decodeReport,
  decodeTally,
  pausedKey,
  reportKey,
  shownStatus,
  type TriggerStatus,
  withUploads,
} from "../state.js";
import { tallyKey } from "./tally.js";

/** A report older than this means no server consumes the trigger. */
const STALE_MS = 10_000;

/** One trigger as listed. */
export interface TriggerView {
  readonly id: string;
  readonly kind: string;
  /** `pipeline <script>` or `runnable <name>`. */
  readonly target: { readonly type: string; readonly name: string };
  /** Where it reads from. */
  readonly source: string;
  /** The file that configures it. */
  readonly configuredIn: string;
  readonly status: TriggerStatus;
  readonly paused: boolean;
  readonly holder: string | null;
  readonly messages: number;
  /** ISO 8601, like every time of the API. */
  readonly lastMessageAt: string | null;
  readonly lastMessage: string | null;
  readonly lastRunId: string | null;
  readonly lastError: string | null;
  readonly lastErrorAt: string | null;
}

function iso(ms: number | undefined): string | null {
  return ms === undefined ? null : new Date(ms).toISOString();
}

/** Every trigger with its state. */
export async function listTriggers(
  store: Store,
  specs: readonly TriggerSpec[],
  now = Date.now(),
): Promise<TriggerView[]> {
  const out: TriggerView[] = [];
  for (const spec of specs) {
    const paused = (await store.kvGet(pausedKey(spec.id))) !== null;
    const consumed = decodeReport(await store.kvGet(reportKey(spec.id)));
    const report =
      spec.kind === "data_upload" || spec.kind === "webhook"
        ? withUploads(consumed, decodeTally(await store.kvGet(tallyKey(spec.id))))
        : consumed;
    out.push({
      id: spec.id,
      kind: spec.kind,
      target: { type: spec.target.type, name: spec.target.name },
      source: describeTrigger(spec),
      configuredIn: spec.source,
      status: shownStatus(paused, consumed, now, STALE_MS),
      paused,
      holder: report?.holder ?? null,
      messages: report?.messages ?? 0,
      lastMessageAt: iso(report?.lastMessageAt),
      lastMessage: report?.lastMessage ?? null,
      lastRunId: report?.lastRunId ?? null,
      lastError: report?.lastError ?? null,
      lastErrorAt: iso(report?.lastErrorAt),
    });
  }
  return out;
}

/**
 * Pauses or resumes a trigger (its consumer follows within a tick). Returns whether it changed.
 * @throws TriggerError `TRIGGER_NOT_FOUND` for an id that is not a trigger of the project
 */
export async function setTriggerPaused(
  store: Store,
  specs: readonly TriggerSpec[],
  id: string,
  paused: boolean,
): Promise<boolean> {
  if (!specs.some((s) => s.id === id))
    throw new TriggerError(
      "TRIGGER_NOT_FOUND",
      `no trigger ${JSON.stringify(id)} in this project; triggers: ${specs.map((s) => s.id).join(", ") || "none"}`,
    );
  const was = (await store.kvGet(pausedKey(id))) !== null;
  if (was === paused) return false;
  if (paused) await store.kvPut(pausedKey(id), String(Date.now()));
  else await store.kvDelete(pausedKey(id));
  return true;
}
