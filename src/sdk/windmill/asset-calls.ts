/**
 * The asset helpers by name, as scripts in other languages call them: Python's `wmill`
 * (`write_s3_file`, `load_s3_file`, `get_resource`, `datatable(...).query`, `ducklake(...)`,
 * volumes, `get_partition`) and the `wmill` command of Bash scripts send `{op, args}`
 * (bytes as base64) over the pipeline bridge's socket or the Python host's pipes; this
 * is the one table that maps them onto an {@link AssetSdkHost}.
 * @internal
 */
import { SluiceError } from "../errors.js";
import type { AssetSdkHost } from "./asset-host.js";
import { S3ObjectNotFoundError } from "./s3.js";

/** An asset call with an unknown operation or a wrong argument. @internal */
export class AssetCallInvalidError extends SluiceError {
  constructor(message: string) {
    super("BRIDGE_REQUEST_INVALID", message);
  }
}

const b64 = (bytes: Uint8Array | undefined) => (bytes === undefined ? null : Buffer.from(bytes).toString("base64"));
const unb64 = (text: unknown) => {
  if (typeof text !== "string") throw new AssetCallInvalidError("expected base64 data");
  return new Uint8Array(Buffer.from(text, "base64"));
};
const str = (v: unknown, what: string): string => {
  if (typeof v !== "string") throw new AssetCallInvalidError(`${what} must be a string`);
  return v;
};

/**
 * Performs the asset call `op` with `a` on `sdk`; resolves with its JSON answer.
 * @throws AssetCallInvalidError for an unknown operation or a wrong argument; the host's errors otherwise
 * @internal
 */
export async function performAssetCall(sdk: AssetSdkHost, op: string, a: Record<string, unknown>): Promise<unknown> {
  switch (op) {
    case "write_s3_file":
      return sdk.writeObject(
        str(a.key, "key"),
        unb64(a.data),
        typeof a.content_type === "string" ? a.content_type : undefined,
      );
    case "load_s3_file": {
      // `required` (the Python SDK's load_s3_file): a missing object fails as loadS3File's does.
      const key = str(a.key, "key");
      const bytes = await sdk.readObject(key);
      if (bytes === undefined && a.required === true) throw new S3ObjectNotFoundError(key, sdk.objectStoreLabel());
      return b64(bytes);
    }
    case "get_resource":
      return sdk.getResource(str(a.path, "path"), a.none_if_undefined === true);
    case "set_resource":
      return sdk.setResource(str(a.path, "path"), a.value, typeof a.type === "string" ? a.type : "any");
    case "datatable_query":
      return sdk.queryDatatable(
        str(a.name ?? "main", "name"),
        str(a.sql, "sql"),
        Array.isArray(a.params) ? a.params : [],
      );
    case "write_volume_file":
      return sdk.writeVolumeFile(str(a.volume, "volume"), str(a.path, "path"), unb64(a.data));
    case "load_volume_file":
      return b64(await sdk.readVolumeFile(str(a.volume, "volume"), str(a.path, "path")));
    case "volume_path":
      return sdk.volumeDir(str(a.volume, "volume"));
    case "ducklake_read":
      return sdk.lakeRead(str(a.name ?? "main", "name"), str(a.table, "table"), {
        ...(typeof a.partition === "string" && { partition: a.partition }),
        ...(typeof a.version === "number" && { version: a.version }),
        ...(typeof a.timestamp === "string" && { timestamp: a.timestamp }),
      });
    case "ducklake_write": {
      const mode = a.mode === "append" ? "append" : a.mode === "merge" ? "merge" : "replace";
      const partition = typeof a.partition === "string" ? a.partition : sdk.partition();
      return sdk.lakeWrite(
        str(a.name ?? "main", "name"),
        str(a.table, "table"),
        Array.isArray(a.rows) ? (a.rows as Record<string, unknown>[]) : [],
        {
          mode,
          ...(typeof a.key === "string" && { key: a.key }),
          ...(partition !== undefined && { partition }),
        },
      );
    }
    case "partition":
      return sdk.partition() ?? null;
    default:
      throw new AssetCallInvalidError(`unknown asset operation ${JSON.stringify(op)}`);
  }
}
