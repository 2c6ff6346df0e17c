/**
 * A folder's pipeline for people and programs: a text outline (one line per script,
 * inputs → script → outputs, with its annotations), Mermaid, and a stable JSON shape.
 * Native trigger markers without a trigger row are shown as "not configured" nodes.
 */
import { formatDiagnostic } from "../diagnostics.js";
import { cascadeEdges } from "../lineage-graph.js";
import { describeScheme } from "../lineage-schemes.js";
import { findCycle, topologicalOrder } from "../topo-order.js";
import type { MemberScript, PipelineFolder } from "./catalog.js";
import { isConsumedKind } from "../../triggers/kinds.js";
import { describeTrigger } from "../../triggers/spec.js";
import { pipelineSpecs } from "./triggers-config.js";
import { edgeLineage, type GraphLineage } from "./graph-lineage.js";

/** A native trigger of a script as the graph shows it. */
export interface TriggerView {
  readonly kind: string;
  /** `configured` (a row exists and Sluice runs it), `not-configured`, or `unsupported` (kind not run by Sluice yet). */
  readonly state: "configured" | "not-configured" | "unsupported";
  readonly detail?: string;
}

/** The native triggers of a member with their configuration state. */
export function triggerViews(m: MemberScript): TriggerView[] {
  return m.analyzed.annotations.nativeTriggers.map((t) => {
    if (t.kind === "schedule")
      return m.triggers.schedule
        ? { kind: t.kind, state: "configured", detail: `${m.triggers.schedule.cron} ${m.triggers.schedule.timezone}` }
        : { kind: t.kind, state: "not-configured" };
    if (t.kind === "webhook")
      return m.triggers.webhook
        ? { kind: t.kind, state: "configured", detail: `POST /api/pipelines/webhook/${m.name}` }
        : { kind: t.kind, state: "not-configured" };
    if (isConsumedKind(t.kind)) {
      const spec = pipelineSpecs(m).find((s) => s.kind === t.kind);
      return spec
        ? { kind: t.kind, state: "configured", detail: describeTrigger(spec) }
        : { kind: t.kind, state: "not-configured" };
    }
    return { kind: t.kind, state: "unsupported", detail: `${t.kind} triggers are not run by Sluice yet` };
  });
}

/** The members of a folder in cascade order (path order when the cascade has a cycle). */
export function orderedMembers(folder: PipelineFolder): MemberScript[] {
  const ids = folder.analysis.graph.scripts.map((s) => s.id);
  const edges = cascadeEdges(folder.analysis.graph);
  const order = findCycle(ids, edges) ? ids : topologicalOrder(ids, edges);
  return order.map((id) => folder.members.find((m) => `script:${m.path}` === id)!).filter(Boolean);
}

/** Short labels of a member's annotations, e.g. `partitioned daily`, `trigger all`, `retry 3 10s`. */
function annotationLabels(folder: PipelineFolder, m: MemberScript): string[] {
  const a = m.analyzed.annotations;
  const out: string[] = [];
  const scheme = folder.schemes.get(`script:${m.path}`);
  if (scheme) out.push(`${scheme.source === "own" ? "partitioned" : "inherits"} ${describeScheme(scheme.spec)}`);
  if (a.trigger === "all") out.push("trigger all");
  if (a.debounce) out.push(`debounce ${a.debounce.duration.raw}`);
  if (a.retry) out.push(`retry ${a.retry.count}${a.retry.delay ? ` ${a.retry.delay.raw}` : ""}`);
  if (a.tag) out.push(`tag ${a.tag.name}`);
  if (a.freshness) out.push(`freshness ${a.freshness.duration.raw}`);
  if (a.materialize)
    out.push(
      `materialize ${a.materialize.mode} ${a.materialize.target.uri}${a.materialize.mode === "managed" ? ` ${a.materialize.strategy}${a.materialize.key ? ` key=${a.materialize.key}` : ""}` : ""}`,
    );
  if (a.dataTests.length) out.push(`${a.dataTests.length} data test(s) before publish`);
  for (const t of triggerViews(m))
    out.push(`on ${t.kind}: ${t.state === "configured" ? t.detail : t.state.replace("-", " ")}`);
  return out;
}

/** The text outline of a folder. */
export function renderText(folder: PipelineFolder): string {
  const lines = [
    `pipeline ${folder.folder || "."}: ${folder.members.length} script(s)${
      folder.broken.size === 0
        ? ""
        : folder.broken.size === folder.members.length
          ? " — NOT LOADED (errors below)"
          : ` — ${folder.broken.size} not loaded (errors below), the others run`
    }`,
  ];
  for (const m of orderedMembers(folder)) {
    const a = m.analyzed.annotations;
    const inputs = a.inputs.map((i) => i.asset.uri + (i.debounce ? ` (debounce=${i.debounce.raw})` : ""));
    const starts = [...inputs, ...a.nativeTriggers.map((t) => `(${t.kind})`)];
    const outputs = m.analyzed.assets.writes.map((w) => w.asset.uri);
    const name = m.path.slice(m.folder ? m.folder.length + 1 : 0);
    lines.push(
      `  ${starts.length ? starts.join(", ") : "(manual)"} → ${name} → ${outputs.length ? outputs.join(", ") : "(no outputs)"}`,
    );
    const labels = annotationLabels(folder, m);
    if (labels.length) lines.push(`      ${labels.join(" · ")}`);
    const broken = folder.broken.get(m.path);
    if (broken) lines.push(`      NOT LOADED: ${broken}`);
  }
  for (const d of folder.diagnostics) lines.push(`  ${formatDiagnostic(d)}`);
  return lines.join("\n");
}

const esc = (s: string) => s.replace(/"/g, "#quot;");

/** The folder as a Mermaid flowchart (scripts, assets, native trigger nodes). */
export function renderMermaid(folder: PipelineFolder): string {
  const g = folder.analysis.graph;
  const ids = new Map<string, string>();
  const idOf = (nodeId: string, prefix: string) => {
    if (!ids.has(nodeId)) ids.set(nodeId, `${prefix}${ids.size}`);
    return ids.get(nodeId)!;
  };
  const lines = ["flowchart LR"];
  for (const m of orderedMembers(folder))
    lines.push(
      `  ${idOf(`script:${m.path}`, "s")}["${esc(m.path.slice(m.folder ? m.folder.length + 1 : 0))}"]:::script`,
    );
  for (const a of g.assets) lines.push(`  ${idOf(a.id, "a")}[("${esc(a.asset.uri)}")]:::asset`);
  for (const m of folder.members) {
    for (const t of triggerViews(m)) {
      const id = idOf(`trigger:${t.kind}:${m.path}`, "t");
      lines.push(
        `  ${id}{{"${esc(t.state === "configured" ? `${t.kind}: ${t.detail}` : `${t.kind} (${t.state.replace("-", " ")})`)}"}}:::${t.state === "configured" ? "trigger" : "unconfigured"}`,
      );
    }
  }
  for (const e of g.edges) {
    const from = ids.get(e.from);
    const to = ids.get(e.to);
    if (!from || !to) continue;
    const label = e.kind === "triggers" ? `on${e.debounceSeconds ? ` debounce ${e.debounceSeconds}s` : ""}` : e.kind;
    lines.push(`  ${from} ${e.kind === "reads" ? "-.->" : "-->"}|${label}| ${to}`);
  }
  lines.push(
    "  classDef script fill:#e8f0fe,stroke:#4a6fb5",
    "  classDef asset fill:#fff6e0,stroke:#b58a2a",
    "  classDef trigger fill:#e6f6ea,stroke:#3c8d50",
    "  classDef unconfigured fill:#f3f3f3,stroke:#999,stroke-dasharray: 4 3",
  );
  return lines.join("\n");
}

/** The `--json` / API shape of a folder's graph (see {@link graphJson}). */
export type PipelineGraphJson = ReturnType<typeof graphJson>;

/**
 * The stable `--json` shape of a folder's graph. With `lineage` (read by `graphLineage`),
 * each `writes` edge into a lake table carries `lineage`: the column lineage its script's
 * last managed write recorded, else the one its SQL gives before a write, else its
 * `// column` lines, else null (see `edgeLineage`).
 */
export function graphJson(folder: PipelineFolder, lineage?: GraphLineage) {
  return {
    folder: folder.folder,
    ok: folder.ok,
    depthCap: folder.depthCap,
    scripts: orderedMembers(folder).map((m) => {
      const a = m.analyzed.annotations;
      const scheme = folder.schemes.get(`script:${m.path}`);
      return {
        path: m.path,
        name: m.name,
        language: m.language,
        /** Why the script is not loaded (null when it is). */
        error: folder.broken.get(m.path) ?? null,
        inputs: a.inputs.map((i) => ({
          asset: i.asset.uri,
          partitioned: i.asset.partitioned,
          debounceSeconds: i.debounce?.seconds ?? a.debounce?.duration.seconds ?? null,
          line: i.line,
        })),
        outputs: m.analyzed.assets.writes.map((w) => ({ asset: w.asset.uri, via: w.via, line: w.line })),
        reads: m.analyzed.assets.reads
          .filter((r) => !a.inputs.some((i) => i.asset.uri === r.asset.uri))
          .map((r) => r.asset.uri),
        trigger: a.trigger,
        partition: scheme ? { source: scheme.source, ...scheme.spec } : null,
        retry: a.retry ? { count: a.retry.count, delaySeconds: a.retry.delay?.seconds ?? null } : null,
        tag: a.tag?.name ?? null,
        freshnessSeconds: a.freshness?.duration.seconds ?? null,
        triggers: triggerViews(m),
        labels: annotationLabels(folder, m),
      };
    }),
    assets: folder.analysis.graph.assets.map((a) => ({
      uri: a.asset.uri,
      kind: a.asset.kind,
      partitioned: a.asset.partitioned,
    })),
    edges: folder.analysis.graph.edges.map((e) => {
      const columns =
        e.kind === "writes" && lineage && e.from.startsWith("script:") && e.to.startsWith("asset:")
          ? edgeLineage(
              lineage,
              e.from.slice("script:".length),
              e.to.slice("asset:".length),
              folder.members.find((m) => `script:${m.path}` === e.from)?.analyzed.annotations.columns ?? [],
            )
          : undefined;
      return {
        kind: e.kind,
        from: e.from,
        to: e.to,
        ...(e.written && { written: e.written }),
        ...(columns !== undefined && { lineage: columns }),
      };
    }),
    diagnostics: folder.diagnostics.map((d) => ({
      file: d.script ?? null,
      line: d.line,
      severity: d.severity,
      code: d.code,
      message: d.message,
    })),
  };
}
