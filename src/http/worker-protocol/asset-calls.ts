/**
 * Asset helpers for external workers (`POST /api/worker/runs/{id}/asset`): seed 001's
 * `wmill` helpers (`write_s3_file`, `get_resource`, `datatable`, …) called by a claim's code
 * in another process (seed 000's Python host on the worker protocol). The op table is the one
 * the pipeline bridge and the stdio Python host use (`sdk/windmill/asset-calls.ts`), on the
 * project's asset storage. The claim's token is checked by a fenced write of nothing, as for
 * resume links: a worker whose lease is gone gets 409 `LEASE_LOST`. Not durable: a replay
 * repeats the call (a workflow's own writes belong inside `step`).
 */
import type { Engine } from "../../engine/engine.js";
import { serializeError } from "../../core/serde.js";
import { performAssetCall } from "../../sdk/windmill/asset-calls.js";
import { requireAssetHost } from "../../sdk/windmill/asset-host.js";
import { bodyObject, onlyFields, reqString } from "../input.js";
import { LeaseLostHttpError } from "./claim-writes.js";
import { parseLease } from "./messages.js";

const EXAMPLE = '{"token": 3, "op": "get_resource", "args": {"path": "u/alice/db"}}';

/** The answer: the op's value, or the op's own error (its stable code and message). */
export type AssetCallAnswer = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } };

/**
 * Makes one asset call of the claim named in `raw` on run `runId`.
 * @throws InvalidInputError (400) for a bad body, LeaseLostHttpError (409) for a stale token
 */
export async function claimAssetCall(engine: Engine, runId: string, raw: unknown): Promise<AssetCallAnswer> {
  const b = bodyObject(raw, EXAMPLE);
  onlyFields(b, ["token", "op", "args"]);
  const lease = parseLease(runId, b);
  const op = reqString(b, "op", '"get_resource"');
  const args = bodyObject(b.args ?? {}, '{"path": "u/alice/db"}');
  const r = await engine.committer.submit({ verb: "saveSteps", lease, steps: [] });
  if (!r.ok) throw new LeaseLostHttpError(runId);
  try {
    return { ok: true, value: (await performAssetCall(requireAssetHost(`wmill.${op}`), op, args)) ?? null };
  } catch (err) {
    const e = serializeError(err);
    return { ok: false, error: { code: e.code ?? e.name, message: e.message } };
  }
}
