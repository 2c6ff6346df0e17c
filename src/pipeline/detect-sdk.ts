/**
 * Detection of SDK calls in TypeScript/JavaScript/Python code: S3 object writes and loads
 * (`writeS3File`/`write_s3_file`, `loadS3File`/`load_s3_file` …), resource writes and reads
 * (`setResource`/`set_resource`, `getResource`/`get_resource`), dataframe writers with a
 * literal `s3://` target (`.write_parquet("s3://…")`), volume files (`writeVolumeFile("v", "p")`
 * is `volume://v/p`), and datatable / ducklake clients
 * (`datatable("main")`, whose tables are resolved from the SQL in `detect-sql.ts`).
 */
import { emptyOutput, type DetectorOutput } from "./detect-types.js";
import { callArguments, readStringLiteral, type CallArgument } from "./source-scan.js";

const S3_WRITES = ["writeS3File", "write_s3_file"];
const S3_READS = ["loadS3File", "loadS3FileStream", "load_s3_file", "load_s3_file_reader", "loadS3FileReader"];
const RES_WRITES = ["setResource", "set_resource"];
const RES_READS = ["getResource", "get_resource"];
const VOLUME_WRITES = ["writeVolumeFile", "write_volume_file"];
const VOLUME_READS = ["loadVolumeFile", "load_volume_file"];
const FRAME_WRITES = [
  "write_parquet",
  "write_csv",
  "write_json",
  "write_ndjson",
  "to_parquet",
  "to_csv",
  "to_json",
  "sink_parquet",
  "sink_csv",
];
const RESOURCE_PATH = /^(\$res:)?[ufg]\/[A-Za-z0-9_.@-]+(\/[A-Za-z0-9_.@-]+)*$/;

/** A `datatable(...)` / `ducklake(...)` client created in code. */
export interface SqlClient {
  readonly kind: "datatable" | "ducklake";
  readonly name: string;
  readonly offset: number;
}

function calls(text: string, names: readonly string[]): Array<{ name: string; args: CallArgument[]; offset: number }> {
  const re = new RegExp(`\\b(${names.join("|")})\\s*\\(`, "g");
  const out: Array<{ name: string; args: CallArgument[]; offset: number }> = [];
  for (const m of text.matchAll(re)) {
    const open = m.index + m[0].length - 1;
    out.push({ name: m[1] as string, args: callArguments(text, open), offset: m.index });
  }
  return out;
}

/** The asset of an S3 key as the SDKs read it: an optional `s3://`, then leading slashes dropped. */
const s3Uri = (key: string): string =>
  `s3://${key
    .trim()
    .replace(/^s3:\/\//, "")
    .replace(/^\/+/, "")}`;

/**
 * The S3 key of an S3-object argument: `{ s3: "k" }`, `S3Object(s3="k")`, `{"s3": "k"}`, or a
 * string, which both SDKs take as the key itself (`"k"`, `"s3://k"`, `f"raw/{partition}.json"`).
 */
function s3Target(arg: CallArgument | undefined): { uri?: string; dynamic: boolean } {
  if (!arg) return { dynamic: true };
  const direct = readStringLiteral(arg.text, 0);
  if (direct && direct.end === arg.text.length) {
    if (direct.dynamic || direct.value.trim() === "") return { dynamic: true };
    return { uri: s3Uri(direct.value), dynamic: false };
  }
  const field = /(?:\bs3\s*[:=]|["']s3["']\s*:)\s*/.exec(arg.text);
  const lit = field ? readStringLiteral(arg.text, field.index + field[0].length) : undefined;
  if (!lit || lit.dynamic) return { dynamic: true };
  return { uri: `s3://${lit.value}`, dynamic: false };
}

function resourceTarget(args: readonly CallArgument[]): string | undefined {
  for (const arg of args) {
    const text = arg.text.replace(/^path\s*=\s*/, "");
    const lit = readStringLiteral(text, 0);
    if (lit && !lit.dynamic && RESOURCE_PATH.test(lit.value)) return `$res:${lit.value.replace(/^\$res:/, "")}`;
  }
  return undefined;
}

/** Find SDK reads and writes in code. */
export function detectSdkCalls(text: string): DetectorOutput {
  const out = emptyOutput();
  for (const [names, access] of [
    [S3_WRITES, "write"],
    [S3_READS, "read"],
  ] as const) {
    for (const call of calls(text, names)) {
      const target = s3Target(call.args[0]);
      if (target.uri) out.detections.push({ uri: target.uri, access, offset: call.offset, via: call.name });
      else out.dynamic.push({ offset: call.offset, via: call.name });
    }
  }
  for (const [names, access] of [
    [RES_WRITES, "write"],
    [RES_READS, "read"],
  ] as const) {
    for (const call of calls(text, names)) {
      const uri = resourceTarget(call.args);
      if (uri) out.detections.push({ uri, access, offset: call.offset, via: call.name });
      else out.dynamic.push({ offset: call.offset, via: call.name });
    }
  }
  for (const [names, access] of [
    [VOLUME_WRITES, "write"],
    [VOLUME_READS, "read"],
  ] as const) {
    for (const call of calls(text, names)) {
      const volume = call.args[0] ? readStringLiteral(call.args[0].text, 0) : undefined;
      const path = call.args[1] ? readStringLiteral(call.args[1].text, 0) : undefined;
      if (volume && path && !volume.dynamic && !path.dynamic && volume.end === call.args[0]!.text.length)
        out.detections.push({
          uri: `volume://${volume.value}/${path.value}`,
          access,
          offset: call.offset,
          via: call.name,
        });
      else out.dynamic.push({ offset: call.offset, via: call.name });
    }
  }
  for (const call of calls(text, FRAME_WRITES)) {
    const lit = call.args[0] ? readStringLiteral(call.args[0].text, 0) : undefined;
    if (lit && lit.value.startsWith("s3://")) {
      if (lit.dynamic) out.dynamic.push({ offset: call.offset, via: call.name });
      else out.detections.push({ uri: lit.value, access: "write", offset: call.offset, via: call.name });
    }
  }
  return out;
}

/**
 * Find `datatable(...)` and `ducklake(...)` clients. A call without arguments uses `main`;
 * a call whose name is not a literal is reported as dynamic.
 */
export function detectSqlClients(text: string): { clients: SqlClient[]; dynamic: DetectorOutput["dynamic"] } {
  const clients: SqlClient[] = [];
  const dynamic: DetectorOutput["dynamic"] = [];
  for (const call of calls(text, ["datatable", "ducklake"])) {
    const kind = call.name as SqlClient["kind"];
    const first = call.args[0];
    if (!first) {
      clients.push({ kind, name: "main", offset: call.offset });
      continue;
    }
    const lit = readStringLiteral(first.text, 0);
    if (lit && !lit.dynamic && /^[A-Za-z0-9_-]+$/.test(lit.value))
      clients.push({ kind, name: lit.value, offset: call.offset });
    else dynamic.push({ offset: call.offset, via: call.name });
  }
  return { clients, dynamic };
}
