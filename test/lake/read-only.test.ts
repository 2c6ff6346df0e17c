/**
 * `sluice lake snapshots|tables|schema` (the real binary) open the SQLite catalog read-only
 * and create or change nothing. Tests run as root, so `chmod` proves nothing; what each test
 * proves instead:
 *
 * - with no writer open: the lake folder's files (names, sizes, mtimes, SHA-256) are the same
 *   after the reads — in particular no `-wal`/`-shm` appear (SQLite's own read-only open of a
 *   WAL database creates both and leaves them); and, under `strace` (skipped without it), every
 *   `open` of the catalog's files by the process and its threads is `O_RDONLY` (before, the
 *   reads opened it `O_RDWR|O_CREAT`, which left no trace when nothing was committed);
 * - on a read-only bind mount (`unshare -m` + `mount --bind -o ro`, skipped where mounting is
 *   not allowed): the reads succeed, and a write (`lake rollback`) on the same mount fails, so
 *   the mount really refused writes;
 * - while a writer holds the catalog open: the reads see its latest commit through its WAL,
 *   and the catalog file and WAL are unchanged (the `-shm` is SQLite's shared lock index, which
 *   every reader of a WAL database writes its read marks to);
 * - in-process: a catalog opened read-only refuses writes in both ways it is opened.
 */
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withDuckDb } from "../../src/assets/duckdb.js";
import { openSqliteCatalog } from "../../src/lake/catalog-sqlite.js";
import { openLakeForWrite } from "../../src/lake/writer.js";
import { spawnSluice } from "../helpers/processes.js";
import { REPO } from "../helpers/project.js";

let root: string;
let lakes: string;
let catalog: string;
const open = () => openLakeForWrite(catalog, { dataPath: join(lakes, "main") });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "sluice-lake-ro-"));
  lakes = join(root, ".sluice", "lakes");
  catalog = join(lakes, "main.sqlite");
  const lake = await open();
  try {
    await withDuckDb([], (conn) =>
      lake.write(conn, { table: "orders", mode: "append", source: "SELECT 1::BIGINT AS id, 'a' AS label" }),
    );
  } finally {
    await lake.close();
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every file under `dir`: size, mtime (ns) and SHA-256. */
function fingerprint(dir: string, only?: (file: string) => boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    if (only && !only(path)) continue;
    const st = statSync(path, { bigint: true });
    out[relative(dir, path)] =
      `${st.size} ${st.mtimeNs} ${createHash("sha256").update(readFileSync(path)).digest("hex")}`;
  }
  return out;
}

async function read(args: string[]): Promise<unknown> {
  const p = spawnSluice(["lake", ...args, "--json", "--dir", root], root);
  expect(await p.exited, p.output()).toBe(0);
  return JSON.parse(p.stdout());
}

const snapshotIds = (v: unknown) => (v as Array<{ snapshot_id: number }>).map((s) => s.snapshot_id);

/** `strace` can trace a child here. */
const canTrace = spawnSync("strace", ["-f", "-e", "trace=openat", "-o", "/dev/null", "true"]).status === 0;

/** `unshare -m` with a read-only bind mount works here (root with CAP_SYS_ADMIN). */
const canMount = spawnSync("unshare", ["-m", "sh", "-c", "mount --bind -o ro /tmp /tmp"]).status === 0;

describe("lake reads open the catalog read-only", () => {
  it("create and change nothing in the lake folder (no -wal/-shm either)", async () => {
    const before = fingerprint(lakes);
    expect(Object.keys(before)).toContain("main.sqlite");
    expect(Object.keys(before).filter((f) => /-(wal|shm)$/.test(f))).toEqual([]);
    expect(snapshotIds(await read(["snapshots", "main"]))).toEqual([0, 1]);
    expect(await read(["tables", "main"])).toEqual([
      { table: "main.orders", table_id: 1, rows: 1, files: 1, snapshot: 1 },
    ]);
    expect((await read(["schema", "main/orders", "--history"])) as unknown[]).toHaveLength(2);
    expect(fingerprint(lakes)).toEqual(before);
  }, 60_000);

  it.skipIf(!canTrace)("open every catalog file O_RDONLY (strace of the real binary)", () => {
    const trace = join(root, "opens.txt");
    const p = spawnSync(
      "strace",
      ["-f", "-e", "trace=open,openat", "-o", trace, process.execPath, join(REPO, "bin", "sluice.js")].concat([
        "lake",
        "tables",
        "main",
        "--json",
        "--dir",
        root,
      ]),
      { encoding: "utf8", cwd: root, timeout: 60_000 },
    );
    expect(p.status, p.stderr).toBe(0);
    expect(JSON.parse(p.stdout)).toHaveLength(1);
    const opens = readFileSync(trace, "utf8")
      .split("\n")
      .filter((l) => l.includes(catalog));
    expect(opens.length).toBeGreaterThan(0);
    for (const l of opens) expect(l).toMatch(/O_RDONLY/);
    for (const l of opens) expect(l).not.toMatch(/O_RDWR|O_WRONLY|O_CREAT/);
  });

  it.skipIf(!canMount)("read a catalog on a read-only mount, where a write fails", () => {
    const inReadOnlyMount = (args: string[]) =>
      spawnSync(
        "unshare",
        [
          "-m",
          "sh",
          "-c",
          `mount --bind -o ro "${lakes}" "${lakes}" && exec "$0" "$@"`,
          process.execPath,
          join(REPO, "bin", "sluice.js"),
          "lake",
          ...args,
          "--json",
          "--dir",
          root,
        ],
        { encoding: "utf8", cwd: root, timeout: 60_000 },
      );
    const before = fingerprint(lakes);
    const snaps = inReadOnlyMount(["snapshots", "main"]);
    expect(snaps.status, snaps.stderr).toBe(0);
    expect(snapshotIds(JSON.parse(snaps.stdout))).toEqual([0, 1]);
    const schema = inReadOnlyMount(["schema", "main/orders"]);
    expect(schema.status, schema.stderr).toBe(0);
    expect(JSON.parse(schema.stdout)).toEqual([
      { column_id: 1, name: "id", type: "BIGINT" },
      { column_id: 2, name: "label", type: "VARCHAR" },
    ]);
    // the mount is really read-only: a write through it fails
    const write = inReadOnlyMount(["rollback", "main/orders", "--to", "0"]);
    expect(write.status).not.toBe(0);
    expect(fingerprint(lakes)).toEqual(before);
  });

  it("see a writer's latest commit through its WAL while it holds the catalog open, changing neither file", async () => {
    const writer = await open();
    try {
      await withDuckDb([], (conn) =>
        writer.write(conn, { table: "orders", mode: "append", source: "SELECT 2::BIGINT AS id, 'b' AS label" }),
      );
      const dataFiles = (f: string) => !f.endsWith("-shm");
      const before = fingerprint(lakes, dataFiles);
      expect(Object.keys(before)).toContain("main.sqlite-wal");
      expect(snapshotIds(await read(["snapshots", "main"]))).toEqual([0, 1, 2]);
      expect(fingerprint(lakes, dataFiles)).toEqual(before);
    } finally {
      await writer.close();
    }
  }, 60_000);

  it("a catalog opened read-only refuses writes, with and without a writer's WAL", async () => {
    const insert = "INSERT INTO ducklake_metadata (key, value) VALUES ('x', 'y')";
    const alone = openSqliteCatalog(catalog, { readonly: true });
    try {
      await expect(alone.run(insert)).rejects.toThrow(/readonly/);
    } finally {
      await alone.close();
    }
    const writer = await open();
    try {
      const beside = openSqliteCatalog(catalog, { readonly: true });
      try {
        await expect(beside.run(insert)).rejects.toThrow(/readonly/);
        expect((await beside.all("SELECT count(*) AS n FROM ducklake_snapshot"))[0]!.n).toBeGreaterThan(0);
      } finally {
        await beside.close();
      }
    } finally {
      await writer.close();
    }
  });
});
