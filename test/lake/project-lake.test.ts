/**
 * A host that keeps its connections shares one open lake between runs (`withProjectLake`); a
 * catalog removed and created again while it runs gets a connection of its own, and one-shot
 * callers (no kept connections) open and close their own.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { resolveAssetConfig } from "../../src/assets/config.js";
import { SharedOpens } from "../../src/assets/shared-opens.js";
import { withDuckDb } from "../../src/assets/duckdb.js";
import { type ProjectLakes, withProjectLake } from "../../src/lake/project-lake.js";
import type { LakeWriter } from "../../src/lake/writer.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "sluice-project-lake-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const hostOf = (shared?: SharedOpens): ProjectLakes => ({
  config: resolveAssetConfig(root, undefined, {}),
  lakeCatalog: { kind: "sqlite" },
  ...(shared && { shared }),
});

const append = (lake: LakeWriter, id: number) =>
  withDuckDb([], (conn) => lake.write(conn, { table: "t", mode: "append", source: `SELECT ${id} AS id` }));

const ids = (host: ProjectLakes) =>
  withProjectLake(host, "main", async (lake) =>
    (await lake.reader.query("t", { kind: "latest" }, "SELECT id FROM {table} ORDER BY id")).map((r) => Number(r.id)),
  );

it("shares one open lake between uses of a host that keeps its connections, until it closes", async () => {
  const shared = new SharedOpens();
  const host = hostOf(shared);
  const seen = new Set<LakeWriter>();
  for (let i = 1; i <= 3; i++) await withProjectLake(host, "main", async (lake) => void seen.add(lake).size);
  // the first use created the catalog (and closed its own connection); the next ones share one
  expect(seen.size).toBe(2);
  await withProjectLake(host, "main", (lake) => append(lake, 1));
  expect(await ids(host)).toEqual([1]);
  await shared.close();
  expect(await ids(hostOf())).toEqual([1]);
});

it("a catalog removed and created again while the host runs gets a new connection, and commits land in it", async () => {
  const shared = new SharedOpens();
  const host = hostOf(shared);
  await withProjectLake(host, "main", (lake) => append(lake, 1));
  await withProjectLake(host, "main", (lake) => append(lake, 2));
  rmSync(join(root, ".sluice", "lakes"), { recursive: true, force: true });
  await withProjectLake(host, "main", (lake) => append(lake, 3));
  await withProjectLake(host, "main", (lake) => append(lake, 4));
  // read by a connection of its own: what is on disk now
  expect(await ids(hostOf())).toEqual([3, 4]);
  await shared.close();
});

it("without kept connections each use opens and closes its own", async () => {
  const host = hostOf();
  const seen = new Set<LakeWriter>();
  for (let i = 0; i < 2; i++) await withProjectLake(host, "main", async (lake) => void seen.add(lake));
  expect(seen.size).toBe(2);
});
