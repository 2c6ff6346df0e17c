import { describe, expect, it } from "vitest";
import {
  describeChanges,
  diffReleases,
  InvalidReleaseError,
  fileChanges,
  isEmptyChange,
  mergePushed,
  pushSelects,
  lockOf,
  manifestProblems,
  parseManifest,
  RELEASE_FORMAT,
  type ReleaseManifest,
  releaseOfRun,
  type ReleaseWorkflow,
} from "./release.js";

const wf = (name: string, version: string, cron: string | null = null): ReleaseWorkflow => ({
  name,
  version,
  queue: "default",
  maxAttempts: 3,
  backoff: { base: 1000, max: 3_600_000 },
  source: `${name}.ts`,
  schedule: cron ? { cron, timezone: "UTC" } : null,
});

function manifest(parts: Partial<ReleaseManifest> = {}): ReleaseManifest {
  return { format: RELEASE_FORMAT, files: [], modules: [], workflows: [], pipelines: [], ...parts };
}

const m1 = manifest({
  files: [
    { path: "a.ts", hash: "h1", bytes: 1 },
    { path: "b.ts", hash: "h2", bytes: 1 },
  ],
  modules: [
    { path: "a.ts", language: "typescript", bundle: "ba", workflows: ["a"] },
    { path: "b.ts", language: "typescript", bundle: "bb", workflows: ["b"] },
  ],
  workflows: [wf("a", "ba", "* * * * *"), wf("b", "bb", "0 * * * *")],
  pipelines: [{ folder: "p", members: ["p/x.sql"], edges: [], triggers: { x: { schedule: "1h" } } }],
});

describe("fileChanges", () => {
  it("lists added, changed and removed files with their hashes on each side, by path", () => {
    const next = manifest({
      files: [
        { path: "a.ts", hash: "h1b", bytes: 1 },
        { path: "c.ts", hash: "h3", bytes: 1 },
      ],
    });
    expect(fileChanges(m1, next)).toEqual([
      { path: "a.ts", change: "changed", before: "h1", after: "h1b" },
      { path: "b.ts", change: "removed", before: "h2", after: null },
      { path: "c.ts", change: "added", before: null, after: "h3" },
    ]);
    expect(fileChanges(null, next).map((f) => f.change)).toEqual(["added", "added"]);
    expect(fileChanges(next, next)).toEqual([]);
  });
});

describe("diffReleases", () => {
  it("reports everything as added against no release", () => {
    const c = diffReleases(null, m1);
    expect(c.workflows).toEqual({ added: ["a", "b"], changed: [], removed: [] });
    expect(c.schedules.added).toEqual(["a", "b"]);
    expect(c.triggers.added).toEqual(["p/x"]);
    expect(c.files.added).toEqual(["a.ts", "b.ts"]);
  });

  it("diffs sluice.json trigger rows by name; a release without them (published before they were recorded) has none", () => {
    const row = (topic: string) => ({ name: "orders", kind: "mqtt", target: "a", url: "mqtt://h:1883", topic });
    const withRows = manifest({ triggers: { orders: row("o/#"), gone: { name: "gone", kind: "nats" } } });
    expect(diffReleases(manifest(), withRows).triggers).toEqual({
      added: ["sluice.json:gone", "sluice.json:orders"],
      changed: [],
      removed: [],
    });
    const next = manifest({ triggers: { orders: row("orders/#"), fresh: { name: "fresh", kind: "sqs" } } });
    const c = diffReleases(withRows, next);
    expect(c.triggers).toEqual({
      added: ["sluice.json:fresh"],
      changed: ["sluice.json:orders"],
      removed: ["sluice.json:gone"],
    });
    expect(describeChanges(c)).toEqual([
      "+ trigger sluice.json:fresh",
      "~ trigger sluice.json:orders",
      "- trigger sluice.json:gone",
    ]);
    expect(isEmptyChange(diffReleases(withRows, withRows))).toBe(true);
  });

  it("finds changed code, changed and removed schedules, removed workflows and changed triggers", () => {
    const m2 = manifest({
      files: [
        { path: "a.ts", hash: "h1b", bytes: 1 },
        { path: "c.ts", hash: "h3", bytes: 1 },
      ],
      modules: [
        { path: "a.ts", language: "typescript", bundle: "ba2", workflows: ["a"] },
        { path: "c.ts", language: "typescript", bundle: "bc", workflows: ["c"] },
      ],
      workflows: [wf("a", "ba2", "*/5 * * * *"), wf("c", "bc")],
      pipelines: [{ folder: "p", members: ["p/x.sql"], edges: [], triggers: { x: { schedule: "2h" } } }],
    });
    const c = diffReleases(m1, m2);
    expect(c.workflows).toEqual({ added: ["c"], changed: ["a"], removed: ["b"] });
    expect(c.schedules).toEqual({ added: [], changed: ["a"], removed: ["b"] });
    expect(c.triggers).toEqual({ added: [], changed: ["p/x"], removed: [] });
    expect(c.files).toEqual({ added: ["c.ts"], changed: ["a.ts"], removed: ["b.ts"] });
    expect(describeChanges(c)).toEqual([
      "+ workflow c",
      "~ workflow a",
      "- workflow b",
      "~ schedule a",
      "- schedule b",
      "~ trigger p/x",
      "+ file c.ts",
      "~ file a.ts",
      "- file b.ts",
    ]);
    expect(isEmptyChange(c)).toBe(false);
  });

  it("is empty between identical manifests", () => {
    expect(isEmptyChange(diffReleases(m1, structuredClone(m1)))).toBe(true);
  });
});

describe("manifestProblems / parseManifest", () => {
  it("accepts a whole manifest", () => {
    expect(manifestProblems(m1)).toEqual([]);
    expect(parseManifest(JSON.stringify(m1))).toEqual(m1);
  });

  it("names a module without its file, a version no module provides, a duplicate and an escaping path", () => {
    const bad = manifest({
      files: [{ path: "../x.ts", hash: "h", bytes: 1 }],
      modules: [{ path: "a.ts", language: "typescript", bundle: "ba", workflows: ["a"] }],
      workflows: [wf("a", "ba"), wf("a", "zz")],
    });
    const problems = manifestProblems(bad);
    expect(problems).toEqual([
      'file path "../x.ts" is not a plain project-relative path',
      "module a.ts is not among the release's files",
      "workflow a is defined twice",
      "workflow a is pinned to version zz, which no module of the release provides",
    ]);
    expect(() => parseManifest(JSON.stringify(bad))).toThrow(InvalidReleaseError);
  });

  it("refuses text that is not a manifest, and a newer format", () => {
    expect(() => parseManifest("{")).toThrow(/not JSON/);
    expect(() => parseManifest("{}")).toThrow(/lacks files/);
    expect(() => parseManifest(JSON.stringify({ ...m1, format: 99 }))).toThrow(/upgrade sluice/);
  });
});

describe("lockOf", () => {
  it("maps each file to its hash, sorted by path", () => {
    expect(
      lockOf(
        manifest({
          files: [
            { path: "z.ts", hash: "2", bytes: 1 },
            { path: "a.ts", hash: "1", bytes: 1 },
          ],
        }),
      ),
    ).toEqual({
      "a.ts": "1",
      "z.ts": "2",
    });
  });
});

describe("releaseOfRun", () => {
  const releases = [
    { id: 1, createdAt: 100, bundles: new Set(["v1"]) },
    { id: 2, createdAt: 200, bundles: new Set(["v1", "v2"]) },
    { id: 3, createdAt: 300, bundles: new Set(["v3"]) },
  ];
  it("takes the newest release with the version published before the run started", () => {
    expect(releaseOfRun({ version: "v1", createdAt: 150, startedAt: 250 }, releases)).toBe(2);
    expect(releaseOfRun({ version: "v1", createdAt: 150, startedAt: null }, releases)).toBe(1);
    expect(releaseOfRun({ version: "v1", createdAt: 500, startedAt: 900 }, releases)).toBe(2);
  });
  it("falls back to the oldest release with the version, and null without one", () => {
    expect(releaseOfRun({ version: "v3", createdAt: 10, startedAt: 20 }, releases)).toBe(3);
    expect(releaseOfRun({ version: "dev", createdAt: 10, startedAt: 20 }, releases)).toBeNull();
    expect(releaseOfRun({ version: null, createdAt: 10, startedAt: 20 }, releases)).toBeNull();
  });
});

describe("pushSelects / mergePushed", () => {
  it("selects the target, its extension-less name, a folder and the __mod modules", () => {
    const sel = (p: string) => pushSelects("f/data/etl", p);
    expect(["f/data/etl.ts", "f/data/etl__mod/extract.ts", "f/data/etl/x.sql"].every(sel)).toBe(true);
    expect(["f/data/etl2.ts", "f/data/other.ts", "f/data/etl__modx/a.ts"].some(sel)).toBe(false);
    expect(pushSelects("f/data/etl.ts", "f/data/etl__mod/a.ts")).toBe(true);
  });

  it("replaces only the pushed path's files, modules and workflows", () => {
    const built = manifest({
      files: [
        { path: "a.ts", hash: "new", bytes: 1 },
        { path: "b.ts", hash: "h2-local-edit", bytes: 1 },
      ],
      modules: [
        { path: "a.ts", language: "typescript", bundle: "ba2", workflows: ["a"] },
        { path: "b.ts", language: "typescript", bundle: "bb2", workflows: ["b"] },
      ],
      workflows: [wf("a", "ba2"), wf("b", "bb2")],
    });
    const merged = mergePushed(m1, built, (p) => pushSelects("a", p));
    expect(merged.files.map((f) => [f.path, f.hash])).toEqual([
      ["a.ts", "new"],
      ["b.ts", "h2"],
    ]);
    expect(merged.workflows.map((w) => [w.name, w.version])).toEqual([
      ["a", "ba2"],
      ["b", "bb"],
    ]);
    expect(manifestProblems(merged)).toEqual([]);
  });
});
