/**
 * Releases (`sluice deploy`): what one atomically published version of a project holds, and
 * the pure rules about it — how two releases differ, whether a manifest is whole, which
 * release a run used. The stores only read and write releases; the CLI builds them.
 *
 * Glossary
 * - release: a numbered, immutable record: who published it, when, what changed, and its manifest.
 * - manifest: every project file of the release by content hash (sources, `__mod/` modules,
 *   `pipeline.json`), every runnable module with the bundle hash runs pin to, the workflow
 *   definitions (queue, retries, schedule, parameters) and the pipeline graphs.
 * - current release: the newest one; a rollback publishes an earlier manifest again as a new release.
 *
 * @module
 */
import type { BackoffPolicy } from "./backoff.js";
import type { ParamSpec } from "./params.js";
import { SluiceError } from "./errors.js";

/** Version of the manifest layout; a reader refuses a newer one. */
export const RELEASE_FORMAT = 1;

/** One project file of a release: its path and the hash its content is stored under. */
export interface ReleaseFile {
  /** Project-relative, `/`-separated. */
  path: string;
  /** Content hash (see {@link sourceBlobKey} for where the text is stored). */
  hash: string;
  bytes: number;
}

/** A module that defines runnables: the code version (bundle hash) its runs pin to. */
export interface ReleaseModule {
  path: string;
  language: "typescript" | "python";
  /** Hash of the stored bundle (TypeScript bundled with its npm dependencies; Python as it is). */
  bundle: string;
  /** Names of the workflows and scripts it defines. */
  workflows: string[];
}

/** A workflow definition as published (the fields of the store's `WorkflowInfo`). */
export interface ReleaseWorkflow {
  name: string;
  version: string | null;
  queue: string;
  maxAttempts: number;
  backoff: BackoffPolicy;
  source: string | null;
  schedule: { cron: string; timezone: string } | null;
  local?: boolean;
  params?: ParamSpec | null;
}

/** One folder's pipeline: its members and cascade edges, and its `pipeline.json` trigger rows. */
export interface ReleasePipeline {
  folder: string;
  members: string[];
  edges: Array<{ from: string; to: string }>;
  /** Trigger rows by script name (`pipeline.json` `triggers`), as JSON values. */
  triggers: Record<string, unknown>;
}

/** What a release holds. */
export interface ReleaseManifest {
  format: number;
  files: ReleaseFile[];
  modules: ReleaseModule[];
  workflows: ReleaseWorkflow[];
  pipelines: ReleasePipeline[];
  /**
   * `sluice.json` trigger rows by their `name`, as JSON values (absent in releases published
   * before they were recorded: read as none).
   */
  triggers?: Record<string, unknown>;
}

/** Added, changed and removed names of one kind. */
interface ChangeSet {
  added: string[];
  changed: string[];
  removed: string[];
}

/** What a release changes against the one before it. */
export interface ReleaseChanges {
  files: ChangeSet;
  workflows: ChangeSet;
  schedules: ChangeSet;
  triggers: ChangeSet;
}

/** A stored release. */
export interface ReleaseRecord {
  id: number;
  createdAt: number;
  /** Who published it (`SLUICE_USER`, else the OS user). */
  createdBy: string | null;
  /** The release it republishes (`sluice deploy --rollback`), else null. */
  rollbackOf: number | null;
  changes: ReleaseChanges;
  manifest: ReleaseManifest;
}

/** A release without its manifest (listings). */
export type ReleaseSummary = Omit<ReleaseRecord, "manifest">;

/** A release's manifest is not whole or not readable by this version. */
export class InvalidReleaseError extends SluiceError {
  constructor(
    message: string,
    readonly problems: string[] = [],
  ) {
    super("INVALID_RELEASE", message);
  }
}

/** Where the text of a release file with content `hash` is kept among the stored bundles. */
export function sourceBlobKey(hash: string): string {
  return `src:${hash}`;
}

function diffBy<T>(before: readonly T[], after: readonly T[], key: (t: T) => string, same: (a: T, b: T) => boolean) {
  const old = new Map(before.map((t) => [key(t), t]));
  const now = new Map(after.map((t) => [key(t), t]));
  const out: ChangeSet = { added: [], changed: [], removed: [] };
  for (const [k, t] of now) {
    const o = old.get(k);
    if (!o) out.added.push(k);
    else if (!same(o, t)) out.changed.push(k);
  }
  for (const k of old.keys()) if (!now.has(k)) out.removed.push(k);
  for (const list of [out.added, out.changed, out.removed]) list.sort();
  return out;
}

const json = (v: unknown) => JSON.stringify(v ?? null);

/**
 * Trigger rows of a release: every pipeline's `pipeline.json` rows, keyed `folder/script`, and the
 * `sluice.json` rows, keyed `sluice.json:<name>`.
 */
function triggerRows(m: ReleaseManifest): Array<{ key: string; row: unknown }> {
  return [
    ...m.pipelines.flatMap((p) =>
      Object.entries(p.triggers).map(([script, row]) => ({ key: p.folder ? `${p.folder}/${script}` : script, row })),
    ),
    ...Object.entries(m.triggers ?? {}).map(([name, row]) => ({ key: `sluice.json:${name}`, row })),
  ];
}

/**
 * How `next` differs from `prev` (null: the first release, everything is added). A workflow
 * changed when its code version or any published setting did; a schedule when its cron or
 * timezone did; a trigger when its `pipeline.json` or `sluice.json` row did.
 */
export function diffReleases(prev: ReleaseManifest | null, next: ReleaseManifest): ReleaseChanges {
  const before: ReleaseManifest = prev ?? {
    format: RELEASE_FORMAT,
    files: [],
    modules: [],
    workflows: [],
    pipelines: [],
  };
  const scheduled = (m: ReleaseManifest) => m.workflows.filter((w) => w.schedule !== null);
  return {
    files: diffBy(
      before.files,
      next.files,
      (f) => f.path,
      (a, b) => a.hash === b.hash,
    ),
    workflows: diffBy(
      before.workflows,
      next.workflows,
      (w) => w.name,
      (a, b) => json(a) === json(b),
    ),
    schedules: diffBy(
      scheduled(before),
      scheduled(next),
      (w) => w.name,
      (a, b) => json(a.schedule) === json(b.schedule),
    ),
    triggers: diffBy(
      triggerRows(before),
      triggerRows(next),
      (t) => t.key,
      (a, b) => json(a.row) === json(b.row),
    ),
  };
}

/** One file a release added, changed or removed, with the content hashes on each side. */
export interface FileChange {
  path: string;
  change: "added" | "changed" | "removed";
  /** Content hash in the release before (null when added). */
  before: string | null;
  /** Content hash in this release (null when removed). */
  after: string | null;
}

/** The files `next` adds, changes and removes against `prev` (null: the first release), by path. */
export function fileChanges(prev: ReleaseManifest | null, next: ReleaseManifest): FileChange[] {
  const before = prev?.files ?? [];
  const hashes = (files: ReleaseManifest["files"]) => new Map(files.map((f) => [f.path, f.hash]));
  const [was, is] = [hashes(before), hashes(next.files)];
  const set = diffBy(
    before,
    next.files,
    (f) => f.path,
    (a, b) => a.hash === b.hash,
  );
  const change = (kind: FileChange["change"]) => (path: string) => ({
    path,
    change: kind,
    before: was.get(path) ?? null,
    after: is.get(path) ?? null,
  });
  return [
    ...set.added.map(change("added")),
    ...set.changed.map(change("changed")),
    ...set.removed.map(change("removed")),
  ].sort((a, b) => a.path.localeCompare(b.path));
}

/** True when nothing differs. */
export function isEmptyChange(c: ReleaseChanges): boolean {
  return [c.files, c.workflows, c.schedules, c.triggers].every(
    (s) => s.added.length + s.changed.length + s.removed.length === 0,
  );
}

/** The diff as lines for people: `+ added`, `~ changed`, `- removed`, by kind. */
export function describeChanges(c: ReleaseChanges): string[] {
  const lines: string[] = [];
  const kinds: Array<[string, ChangeSet]> = [
    ["workflow", c.workflows],
    ["schedule", c.schedules],
    ["trigger", c.triggers],
    ["file", c.files],
  ];
  for (const [kind, set] of kinds) {
    for (const n of set.added) lines.push(`+ ${kind} ${n}`);
    for (const n of set.changed) lines.push(`~ ${kind} ${n}`);
    for (const n of set.removed) lines.push(`- ${kind} ${n}`);
  }
  return lines;
}

/**
 * The problems that make a manifest unfit to publish or run: a module or workflow whose file is
 * not in the release, a name defined twice, a workflow pinned to a version no module provides.
 * Empty when it is whole.
 */
export function manifestProblems(m: ReleaseManifest): string[] {
  const problems: string[] = [];
  if (m.format !== RELEASE_FORMAT)
    problems.push(`manifest format ${m.format} is not ${RELEASE_FORMAT}: upgrade sluice on this machine`);
  const files = new Set(m.files.map((f) => f.path));
  const seenFiles = new Set<string>();
  for (const f of m.files) {
    if (seenFiles.has(f.path)) problems.push(`file ${f.path} is listed twice`);
    seenFiles.add(f.path);
    if (f.path.startsWith("/") || f.path.split("/").some((p) => p === ".." || p === ""))
      problems.push(`file path ${JSON.stringify(f.path)} is not a plain project-relative path`);
  }
  const bundles = new Set<string>();
  for (const mod of m.modules) {
    if (!files.has(mod.path)) problems.push(`module ${mod.path} is not among the release's files`);
    bundles.add(mod.bundle);
  }
  const names = new Set<string>();
  for (const w of m.workflows) {
    if (names.has(w.name)) problems.push(`workflow ${w.name} is defined twice`);
    names.add(w.name);
    if (w.version !== null && !bundles.has(w.version))
      problems.push(`workflow ${w.name} is pinned to version ${w.version}, which no module of the release provides`);
  }
  return problems;
}

/**
 * Parses a stored manifest.
 * @throws InvalidReleaseError when it is not JSON, not a manifest, or not whole
 */
export function parseManifest(text: string): ReleaseManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InvalidReleaseError(`release manifest is not JSON: ${(err as Error).message}`);
  }
  const m = value as ReleaseManifest;
  if (
    !m ||
    typeof m !== "object" ||
    !Array.isArray(m.files) ||
    !Array.isArray(m.modules) ||
    !Array.isArray(m.workflows)
  )
    throw new InvalidReleaseError(
      "release manifest lacks files, modules or workflows: it was not written by sluice deploy",
    );
  m.pipelines ??= [];
  const problems = manifestProblems(m);
  if (problems.length) throw new InvalidReleaseError(`release manifest is not whole: ${problems.join("; ")}`, problems);
  return m;
}

/** The lock-file content of a release (`sluice pull`): per-file content hashes, by path. */
export function lockOf(m: ReleaseManifest): Record<string, string> {
  return Object.fromEntries([...m.files].sort((a, b) => a.path.localeCompare(b.path)).map((f) => [f.path, f.hash]));
}

/**
 * The release a run used: the newest release published no later than the run started (or was
 * created) whose modules include the run's code version; else the oldest release that includes
 * it; null when no release does (a run from `sluice dev`, or in-process code).
 * `releases` may come in any order.
 */
export function releaseOfRun(
  run: { version: string | null; createdAt: number; startedAt: number | null },
  releases: ReadonlyArray<{ id: number; createdAt: number; bundles: ReadonlySet<string> }>,
): number | null {
  if (run.version === null) return null;
  const having = releases.filter((r) => r.bundles.has(run.version!)).sort((a, b) => a.id - b.id);
  if (having.length === 0) return null;
  const at = run.startedAt ?? run.createdAt;
  const before = having.filter((r) => r.createdAt <= at);
  return (before.length ? before[before.length - 1]! : having[0]!).id;
}

/** Whether a release diffed against `expected` may still be published while `current` is the newest. */
export function mayPublishRelease(expected: number | null, current: number | null): boolean {
  return expected === current;
}

/** A stored release row, as both stores read it. */
export interface ReleaseRow {
  id: number | string;
  created_at: number | string;
  created_by: string | null;
  rollback_of: number | string | null;
  changes: string;
  manifest?: string;
}

/** Decodes a stored release row (manifest included when the row has it). */
export function releaseFromRow(row: ReleaseRow & { manifest: string }): ReleaseRecord;
export function releaseFromRow(row: ReleaseRow): ReleaseSummary;
export function releaseFromRow(row: ReleaseRow): ReleaseSummary | ReleaseRecord {
  const summary: ReleaseSummary = {
    id: Number(row.id),
    createdAt: Number(row.created_at),
    createdBy: row.created_by,
    rollbackOf: row.rollback_of === null ? null : Number(row.rollback_of),
    changes: JSON.parse(row.changes) as ReleaseChanges,
  };
  return row.manifest === undefined ? summary : { ...summary, manifest: parseManifest(row.manifest) };
}

/** The bundle hashes of a stored manifest's modules (without validating the rest). */
export function bundlesOfManifest(text: string): string[] {
  const m = JSON.parse(text) as Partial<ReleaseManifest>;
  return (m.modules ?? []).map((x) => x.bundle);
}

const STEM = /\.(m?[jt]s|cjs|py|sh|sql)$/;

/**
 * Whether a project path belongs to `sluice push <target>`: the target file itself (with or without
 * its extension), a folder's contents, and the target's `__mod/` modules.
 */
export function pushSelects(target: string, path: string): boolean {
  const t = target.replace(/^\.?\/+/, "").replace(/\/+$/, "");
  const stem = t.replace(STEM, "");
  return path === t || path.replace(STEM, "") === stem || path.startsWith(`${t}/`) || path.startsWith(`${stem}__mod/`);
}

/**
 * The manifest a push publishes: `current` with the files, modules and workflows that `selects`
 * picks replaced by those of `built` (the whole project, freshly built and validated). Pipeline
 * graphs come from `built` (they span folders). Everything else stays as `current` has it.
 */
export function mergePushed(
  current: ReleaseManifest | null,
  built: ReleaseManifest,
  selects: (path: string) => boolean,
): ReleaseManifest {
  const base = current ?? { format: RELEASE_FORMAT, files: [], modules: [], workflows: [], pipelines: [] };
  const byPath = <T extends { path: string }>(a: T[], b: T[]) =>
    [...a.filter((x) => !selects(x.path)), ...b.filter((x) => selects(x.path))].sort((x, y) =>
      x.path.localeCompare(y.path),
    );
  const picked = (w: ReleaseWorkflow) => w.source !== null && selects(w.source);
  return {
    format: RELEASE_FORMAT,
    files: byPath(base.files, built.files),
    modules: byPath(base.modules, built.modules),
    workflows: [...base.workflows.filter((w) => !picked(w)), ...built.workflows.filter(picked)].sort((a, b) =>
      a.name.localeCompare(b.name),
    ),
    pipelines: built.pipelines,
    ...(base.triggers && { triggers: base.triggers }),
  };
}
