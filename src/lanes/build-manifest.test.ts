import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MANIFEST_KEEP_MS, readBuildManifest, writeBuildManifest } from "./build-manifest.js";

let root: string;
beforeEach(() => void (root = mkdtempSync(join(tmpdir(), "sluice-manifest-"))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

const v1 = [{ file: "workflows/a.ts", hash: "aa11" }];
const v2 = [{ file: "workflows/a.ts", hash: "bb22" }];
const v3 = [{ file: "workflows/a.ts", hash: "cc33" }];
const HOUR = MANIFEST_KEEP_MS;
const T = Date.parse("2026-12-01T10:00:00Z");
const lanesDir = () => join(root, ".sluice", "lanes");
const files = () => readdirSync(lanesDir()).sort();
const age = (path: string, at: number) => utimesSync(path, at / 1000, at / 1000);

describe("build manifests: written once per content, old ones deleted", () => {
  it("writes one file per content and reads it back", () => {
    const a = writeBuildManifest(root, v1, T);
    expect(writeBuildManifest(root, v1, T + 1000)).toBe(a);
    expect(readBuildManifest(a)).toEqual(v1);
    expect(files()).toEqual([basename(a)]);
  });

  it("deletes a manifest unused for an hour when another is written, and keeps the current one", () => {
    const old = writeBuildManifest(root, v1, T);
    const current = writeBuildManifest(root, v2, T + HOUR + 1);
    expect(existsSync(old)).toBe(false);
    expect(files()).toEqual([basename(current)]);
  });

  it("keeps a manifest used within the hour (a lane worker may be starting from it, or another server uses it)", () => {
    const other = writeBuildManifest(root, v1, T);
    writeBuildManifest(root, v1, T + HOUR - 60_000); // used again: touched
    const current = writeBuildManifest(root, v2, T + HOUR + 1);
    expect(files()).toEqual([basename(other), basename(current)].sort());
    expect(statSync(other).mtimeMs).toBe(T + HOUR - 60_000);
  });

  it("keeps the manifest being written however old, and writes it again after another server deleted it", () => {
    const current = writeBuildManifest(root, v1, T);
    age(current, T - 5 * HOUR);
    expect(writeBuildManifest(root, v1, T)).toBe(current);
    expect(statSync(current).mtimeMs).toBe(T);
    // Another server on the same folder writes its version two hours later: v1 was unused since T.
    writeBuildManifest(root, v2, T + 2 * HOUR);
    expect(existsSync(current)).toBe(false);
    // This server's next lane start writes it again.
    expect(writeBuildManifest(root, v1, T + 2 * HOUR + 1)).toBe(current);
    expect(readBuildManifest(current)).toEqual(v1);
  });

  it("leaves other files in the folder alone", () => {
    writeBuildManifest(root, v1, T);
    writeFileSync(join(lanesDir(), "notes.json"), "{}");
    writeFileSync(join(lanesDir(), "build-old.json"), "{}");
    age(join(lanesDir(), "notes.json"), T - 5 * HOUR);
    age(join(lanesDir(), "build-old.json"), T - 5 * HOUR);
    const current = writeBuildManifest(root, v3, T);
    expect(files()).toEqual(
      ["build-old.json", basename(writeBuildManifest(root, v1, T)), basename(current), "notes.json"].sort(),
    );
  });
});
