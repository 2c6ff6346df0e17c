/**
 * A trigger row, parsed (pure). Rows come from two places:
 *
 * - a pipeline folder's `pipeline.json`, keyed by script then kind, targeting that pipeline
 *   step (which also needs its `// on <kind>` marker): `{"triggers": {"ingest": {"mqtt": {…}}}}`;
 *   the trigger's id is `<script name>:<kind>`, e.g. `f/demo/ingest:mqtt`;
 * - `sluice.json` `"triggers"`, a list targeting any runnable by name (a workflow, a
 *   workflow-as-code, a script): `[{"name": "orders", "kind": "nats", "target": "orders", …}]`.
 *
 * Besides the kind's own options ({@link parseKindOptions}) a row may say how a message becomes
 * the run's payload: `"format"` (`auto`: JSON when it parses, else text; `json`; `text`;
 * `base64`), `"args"` (argument name → `$.path` into the message envelope, see
 * `message.ts`) and `"idFrom"` (a `$.path` into the envelope naming the message's identity,
 * for kinds whose messages carry none, like MQTT).
 */
import { parseKeyPath } from "../pipeline/key-path.js";
import { TriggerError } from "./errors.js";
import { parseScheduleRow } from "./schedule-rows.js";
import { type ConsumedKind, isRowKind, type KindOptions, parseKindOptions, ROW_KINDS, type RowKind } from "./kinds.js";

/** How a message's bytes are decoded into its `body`. */
export type BodyFormat = "auto" | "json" | "text" | "base64";

/** What a trigger runs: a pipeline step (by script path) or any registered runnable (by name). */
type TriggerTarget =
  | { readonly type: "pipeline"; readonly script: string; readonly name: string }
  | { readonly type: "runnable"; readonly name: string };

/** How a message becomes a run's payload. */
export interface Mapping {
  readonly format: BodyFormat;
  /** Argument name → parsed `$.path` into the envelope; absent: the body is the payload. */
  readonly args?: ReadonlyArray<readonly [string, readonly string[]]>;
  /** Parsed `$.path` of the message identity; absent: the kind's own identity. */
  readonly idFrom?: readonly string[];
}

/** One trigger row. */
export interface TriggerSpec<K extends RowKind = RowKind> {
  /** Unique in the project: `<script name>:<kind>` for pipeline rows, the row's `name` in `sluice.json`. */
  readonly id: string;
  readonly kind: K;
  readonly target: TriggerTarget;
  readonly options: KindOptions[K];
  readonly mapping: Mapping;
  /** Where it is configured, e.g. `f/demo/pipeline.json` or `sluice.json`. */
  readonly source: string;
}

const COMMON = ["format", "args", "idFrom"];
const FORMATS: readonly BodyFormat[] = ["auto", "json", "text", "base64"];

function bad(where: string, message: string): TriggerError {
  return new TriggerError("TRIGGER_ROW_INVALID", `${where}: ${message}`);
}

function path(value: unknown, where: string, key: string): readonly string[] {
  if (typeof value !== "string") throw bad(where, `"${key}" must be a path such as "$.body.id"`);
  try {
    return parseKeyPath(value);
  } catch (err) {
    throw bad(where, `"${key}": ${(err as Error).message}`);
  }
}

/** Parses the payload mapping of a row. @throws TriggerError */
function parseMapping(raw: Record<string, unknown>, where: string): Mapping {
  const format = raw.format ?? "auto";
  if (!FORMATS.includes(format as BodyFormat))
    throw bad(where, `"format" must be one of ${FORMATS.join(", ")}, got ${JSON.stringify(raw.format)}`);
  let args: Array<readonly [string, readonly string[]]> | undefined;
  if (raw.args !== undefined) {
    if (typeof raw.args !== "object" || raw.args === null || Array.isArray(raw.args))
      throw bad(where, `"args" must map argument names to paths, e.g. {"order": "$.body", "topic": "$.topic"}`);
    args = Object.entries(raw.args).map(([name, p]) => [name, path(p, where, `args.${name}`)] as const);
  }
  return {
    format: format as BodyFormat,
    ...(args && { args }),
    ...(raw.idFrom !== undefined && { idFrom: path(raw.idFrom, where, "idFrom") }),
  };
}

function split(raw: Record<string, unknown>, extra: readonly string[]) {
  const own: Record<string, unknown> = {};
  const common: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (COMMON.includes(k)) common[k] = v;
    else if (!extra.includes(k)) own[k] = v;
  }
  return { own, common };
}

/** The id of a pipeline step's trigger row of `kind` (one row per step and kind). */
export function pipelineTriggerId(memberName: string, kind: ConsumedKind): string {
  return `${memberName}:${kind}`;
}

/** Parses one `pipeline.json` row of a consumed kind for a member script. @throws TriggerError */
export function parsePipelineRow(
  kind: ConsumedKind,
  raw: unknown,
  member: { path: string; name: string },
  source: string,
): TriggerSpec {
  const where = `${source} triggers.${member.name.split("/").pop()}.${kind}`;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw bad(where, `must be an object of ${kind} options`);
  const { own, common } = split(raw as Record<string, unknown>, []);
  return {
    id: pipelineTriggerId(member.name, kind),
    kind,
    target: { type: "pipeline", script: member.path, name: member.name },
    options: parseKindOptions(kind, own, where),
    mapping: parseMapping(common, where),
    source,
  };
}

const ID = /^[A-Za-z0-9][\w.-]{0,99}$/;

/** Parses `sluice.json` `"triggers"` (absent: none). @throws TriggerError naming the row and field */
export function parseConfigTriggers(raw: unknown, source = "sluice.json"): TriggerSpec[] {
  if (raw === undefined) return [];
  const example =
    '[{"name": "orders", "kind": "mqtt", "target": "ingest", "url": "mqtt://127.0.0.1:1883", "topic": "orders/#"}]';
  if (!Array.isArray(raw)) throw bad(source, `"triggers" must be a list such as ${example}`);
  const seen = new Set<string>();
  return raw.flatMap((row: unknown, i): TriggerSpec[] => {
    const where = `${source} triggers[${i}]`;
    if (typeof row !== "object" || row === null || Array.isArray(row))
      throw bad(where, `must be an object such as ${example.slice(1, -1)}`);
    const r = row as Record<string, unknown>;
    if (typeof r.name !== "string" || !ID.test(r.name))
      throw bad(where, `"name" must be a short id (letters, digits, . _ -), e.g. "orders"`);
    if (seen.has(r.name)) throw bad(where, `"name" ${JSON.stringify(r.name)} is used by another trigger`);
    seen.add(r.name);
    if (typeof r.kind !== "string" || (r.kind !== "schedule" && !isRowKind(r.kind)))
      throw bad(where, `"kind" must be one of ${["schedule", ...ROW_KINDS].join(", ")}, got ${JSON.stringify(r.kind)}`);
    if (typeof r.target !== "string" || r.target.trim() === "")
      throw bad(where, `"target" must name a workflow, workflow-as-code or script, e.g. "f/orders/ingest"`);
    // A schedule row is the target's cron (schedule-rows.ts), not a consumed trigger.
    if (r.kind === "schedule") {
      parseScheduleRow(r, `${where} (${r.name})`);
      return [];
    }
    const { own, common } = split(r, ["name", "kind", "target"]);
    return [
      {
        id: r.name,
        kind: r.kind,
        target: { type: "runnable", name: r.target },
        options: parseKindOptions(r.kind, own, `${where} (${r.name})`),
        mapping: parseMapping(common, `${where} (${r.name})`),
        source,
      },
    ];
  });
}

/** One line saying where a trigger reads from, e.g. `mqtt://127.0.0.1:1883 orders/#`. */
export function describeTrigger(spec: TriggerSpec): string {
  if (spec.kind === "mqtt") {
    const o = spec.options as KindOptions["mqtt"];
    return `${o.url} ${o.topics.join(", ")}`;
  }
  if (spec.kind === "sqs") return `sqs ${(spec.options as KindOptions["sqs"]).queueUrl}`;
  if (spec.kind === "kafka") {
    const o = spec.options as KindOptions["kafka"];
    return `kafka ${o.brokers.join(",")} ${o.topics.join(", ")}`;
  }
  if (spec.kind === "email") {
    const o = spec.options as KindOptions["email"];
    return `smtp://${o.host}:${o.port}${o.to ? ` to ${o.to.join(", ")}` : ""}`;
  }
  if (spec.kind === "gcp") {
    const o = spec.options as KindOptions["gcp"];
    return `pubsub ${o.subscription.startsWith("projects/") ? o.subscription : `projects/${o.projectId}/subscriptions/${o.subscription}`}`;
  }
  if (spec.kind === "data_upload") return `POST /api/triggers/${spec.id}/upload`;
  if (spec.kind === "webhook") return `POST /api/triggers/${spec.id}/webhook`;
  if (spec.kind === "postgres") {
    const o = spec.options as KindOptions["postgres"];
    const where = o.url ? new URL(o.url).host + new URL(o.url).pathname : `$${o.urlEnv}`;
    return `postgres ${where} ${o.schema}.${o.table} (${o.events.join(", ")})`;
  }
  const o = spec.options as KindOptions["nats"];
  return `${o.servers.join(",")} stream ${o.stream}${o.subject ? ` subject ${o.subject}` : ""}`;
}
