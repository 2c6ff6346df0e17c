/**
 * `POST /api/worker/batch`: many fenced writes of many claims in one request. Each
 * write is exactly the body of its single route (`steps`, `park`, `finish`, `logs`)
 * and gets its own answer, in order; the writes that parse are handed to the group
 * committer in one turn, so they share one transaction and one fsync. An SDK uses it
 * to send the checkpoints of all its concurrently running claims in one round trip;
 * each answer still comes only after its write is committed.
 */
import { serializeError } from "../../core/serde.js";
import { InvalidInputError } from "../../sdk/errors.js";
import { httpStatusOf } from "../errors.js";
import { bodyObject, onlyFields, reqString } from "../input.js";
import { CLAIM_WRITE_OPS, type ClaimWriteOp, type ClaimWrites } from "./claim-writes.js";

/** Most writes one batch may carry. */
const MAX_BATCH_WRITES = 1_000;

/** One write of a batch: the route it stands for, its run, and that route's body. */
export interface BatchEntry {
  op: ClaimWriteOp;
  runId: string;
  body: unknown;
}

/** The answer to one write: the single route's status and body (`{ error: { code, message } }` when refused). */
export interface BatchResult {
  status: number;
  body: Record<string, unknown>;
}

const bad = (message: string) => new InvalidInputError(message, { code: "INVALID_BODY" });

/**
 * Parses the envelope `{ "writes": [{ "op", "runId", "body" }] }`. The bodies are parsed
 * per write later (a bad one is refused alone).
 * @throws InvalidInputError when the envelope itself is wrong (then nothing is written)
 */
export function parseBatch(raw: unknown): BatchEntry[] {
  const b = bodyObject(raw, '{"writes": [{"op": "steps", "runId": "...", "body": {"token": 3, "steps": []}}]}');
  onlyFields(b, ["writes"]);
  if (!Array.isArray(b.writes) || b.writes.length === 0 || b.writes.length > MAX_BATCH_WRITES)
    throw bad(`"writes" must be an array of 1 to ${MAX_BATCH_WRITES} {op, runId, body}`);
  return b.writes.map((w, i) => {
    const o = bodyObject(w, '{"op": "finish", "runId": "...", "body": {"token": 3, "outcome": "succeeded"}}');
    onlyFields(o, ["op", "runId", "body"]);
    const op = o.op as ClaimWriteOp;
    if (!CLAIM_WRITE_OPS.includes(op)) throw bad(`"writes[${i}].op" must be one of ${CLAIM_WRITE_OPS.join(", ")}`);
    return { op, runId: reqString(o, "runId", '"01a2…"'), body: o.body };
  });
}

/**
 * Prepares every write, hands those that parsed to the committer in one turn (in
 * order: two writes of one run keep their order), and answers each once committed.
 * `report` gets unexpected errors (answered 500 INTERNAL).
 */
export async function applyBatch(
  writes: ClaimWrites,
  entries: BatchEntry[],
  report: (err: unknown) => void,
): Promise<BatchResult[]> {
  const prepared = await Promise.allSettled(entries.map((e) => writes.prepare(e.op, e.runId, e.body)));
  const applied = prepared.map((p) => (p.status === "fulfilled" ? writes.apply(p.value) : Promise.reject(p.reason)));
  const settled = await Promise.allSettled(applied);
  return settled.map((s) =>
    s.status === "fulfilled" ? { status: 200, body: s.value } : errorResult(s.reason, report),
  );
}

function errorResult(err: unknown, report: (err: unknown) => void): BatchResult {
  const status = httpStatusOf(err);
  if (status === 500) {
    report(err);
    return { status, body: { error: { code: "INTERNAL", message: "internal error: see the server's log" } } };
  }
  const e = serializeError(err);
  return { status, body: { error: { code: e.code ?? "ERROR", message: e.message } } };
}
