/**
 * A data upload: the bytes are stored in the project's object store first, then a run is
 * enqueued whose payload names the object (`{ s3: "s3://…", name, size, contentType, sha256 }`,
 * or the row's `args` mapping). The run id derives from the content hash and the file name, so
 * the same file uploaded again (a retried request) finds its run instead of starting another.
 * Each accepted upload (new or deduplicated, like a redelivered message) is counted in the
 * trigger's upload tally, which `sluice triggers` and the API add to its report.
 */
import { createHash } from "node:crypto";
import type { ObjectStore } from "../../assets/object-store.js";
import type { Store } from "../../store/types.js";
import { TriggerError } from "../errors.js";
import type { UploadOptions } from "../kinds.js";
import { messageRun } from "../message.js";
import type { TriggerSpec } from "../spec.js";
import { pausedKey, shorten } from "../state.js";
import { tallyDelivery } from "./tally.js";
import { uploadKey } from "../upload-key.js";
import type { EnqueueMessage } from "./targets.js";

/** What {@link acceptUpload} needs. */
export interface UploadDeps {
  readonly store: Store;
  readonly objects: ObjectStore;
  readonly enqueue: EnqueueMessage;
}

/** The outcome of an upload. */
export interface UploadResult {
  readonly s3: string;
  readonly run: string;
  readonly deduplicated: boolean;
}

/**
 * Stores an upload and enqueues its run.
 * @throws TriggerError `TRIGGER_NOT_FOUND` (no such upload trigger), `TRIGGER_PAUSED`,
 * `TRIGGER_MESSAGE_INVALID` (bad name, too large)
 */
export async function acceptUpload(
  deps: UploadDeps,
  spec: TriggerSpec,
  file: { name: string; bytes: Uint8Array; contentType: string },
): Promise<UploadResult> {
  if (spec.kind !== "data_upload")
    throw new TriggerError("TRIGGER_NOT_FOUND", `trigger ${spec.id} is a ${spec.kind} trigger, not a data_upload one`);
  if ((await deps.store.kvGet(pausedKey(spec.id))) !== null)
    throw new TriggerError(
      "TRIGGER_PAUSED",
      `trigger ${spec.id} is paused: resume it (sluice triggers resume ${spec.id})`,
    );
  const o = spec.options as UploadOptions;
  if (file.bytes.byteLength > o.maxBytes)
    throw new TriggerError(
      "TRIGGER_MESSAGE_INVALID",
      `the upload is ${file.bytes.byteLength} bytes, more than this trigger's maxBytes (${o.maxBytes})`,
    );
  const sha256 = createHash("sha256").update(file.bytes).digest("hex");
  const key = uploadKey(spec.id, o.prefix, file.name, sha256, new Date());
  await deps.objects.put(key, file.bytes, file.contentType);
  const body = {
    s3: `s3://${key}`,
    name: file.name,
    size: file.bytes.byteLength,
    contentType: file.contentType,
    sha256,
  };
  const run = messageRun(spec, { identity: `upload:${sha256}:${file.name}`, bytes: Buffer.from(JSON.stringify(body)) });
  const done = await deps.enqueue(spec, run);
  await tallyDelivery(deps.store, spec.id, { at: Date.now(), message: shorten(run.envelope), runId: done.id });
  return { s3: body.s3, run: done.id, deduplicated: done.deduplicated };
}
