import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { datatableFile, resolveAssetConfig, volumeDir } from "./config.js";
import { KeyedMutex } from "./keyed-mutex.js";
import { resolveInside } from "./safe-path.js";

const tmp = mkdtempSync(join(tmpdir(), "sluice-assets-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("asset configuration", () => {
  it("keeps everything under .sluice by default", () => {
    const c = resolveAssetConfig("/app");
    expect(c.s3).toEqual({ kind: "local", dir: "/app/.sluice/s3" });
    expect(datatableFile(c, "main")).toBe("/app/.sluice/datatables/main.duckdb");
    expect(volumeDir(c, "models")).toBe("/app/.sluice/volumes/models");
  });

  it("points s3:// at a bucket from the file or the environment (env wins)", () => {
    const c = resolveAssetConfig(
      "/app",
      { s3: { bucket: "data-lake", prefix: "team" }, datatables: { analytics: "db/a.duckdb" } },
      { SLUICE_S3_ENDPOINT: "http://127.0.0.1:9000" },
    );
    expect(c.s3).toEqual({
      kind: "s3",
      bucket: "data-lake",
      prefix: "team/",
      region: "us-east-1",
      forcePathStyle: true,
      endpoint: "http://127.0.0.1:9000",
    });
    expect(datatableFile(c, "analytics")).toBe("/app/db/a.duckdb");
  });

  it("refuses bad settings with the field name", () => {
    expect(() => resolveAssetConfig("/app", { s3: { bucket: "Bad_Bucket" } })).toThrow(
      /s3.bucket "Bad_Bucket" is not a valid bucket name/,
    );
    expect(() => resolveAssetConfig("/app", { disks: {} })).toThrow(/unknown setting "disks"/);
    expect(() => datatableFile(resolveAssetConfig("/app"), "../x")).toThrow(/may only use letters, digits, _ and -/);
  });

  it("keeps lake data files locally unless lakes.data is s3 (which needs a bucket)", () => {
    expect(resolveAssetConfig("/app").lakeData).toBe("local");
    expect(resolveAssetConfig("/app", { s3: { bucket: "data-lake" }, lakes: { data: "s3" } }).lakeData).toBe("s3");
    expect(() => resolveAssetConfig("/app", { lakes: { data: "s3" } })).toThrow(/set "s3": \{"bucket": …\} too/);
    expect(() => resolveAssetConfig("/app", { lakes: { data: "gcs" } })).toThrow(/lakes.data must be "local" or "s3"/);
    expect(() => resolveAssetConfig("/app", { lakes: { where: "s3" } })).toThrow(/unknown setting "lakes.where"/);
  });

  it("bounds each lake's local cache of bucket files by lakes.cacheMaxMB (default 2048 MB)", () => {
    expect(resolveAssetConfig("/app").lakeCacheMaxBytes).toBe(2048 * 1024 * 1024);
    const lakes = { data: "s3", cacheMaxMB: 0.5 };
    expect(resolveAssetConfig("/app", { s3: { bucket: "data-lake" }, lakes }).lakeCacheMaxBytes).toBe(512 * 1024);
    for (const cacheMaxMB of [0, -1, "1GB", null])
      expect(() => resolveAssetConfig("/app", { lakes: { cacheMaxMB } })).toThrow(
        /lakes.cacheMaxMB must be a positive number of megabytes/,
      );
  });
});

describe("safe paths", () => {
  it("keeps keys inside their folder, symlinks included", () => {
    const base = join(tmp, "store");
    mkdirSync(base, { recursive: true });
    expect(resolveInside(base, "demo/raw.json")).toBe(join(base, "demo", "raw.json"));
    expect(() => resolveInside(base, "../etc/passwd")).toThrow(/`\.\.` segment/);
    expect(() => resolveInside(base, "/etc/passwd")).toThrow(/absolute/);
    symlinkSync(tmp, join(base, "escape"));
    expect(() => resolveInside(base, "escape/secret.txt")).toThrow(/symbolic link/);
  });

  it("serialises work per key", async () => {
    const mutex = new KeyedMutex();
    const order: string[] = [];
    const job = (name: string, ms: number) =>
      mutex.with(["f"], async () => {
        order.push(`${name}+`);
        await new Promise((r) => setTimeout(r, ms));
        order.push(`${name}-`);
      });
    await Promise.all([job("a", 20), job("b", 1)]);
    expect(order).toEqual(["a+", "a-", "b+", "b-"]);
  });
});
