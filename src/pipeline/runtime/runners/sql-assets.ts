/**
 * Making a DuckDB script's asset URIs point at real files, since DuckDB's S3 extension is
 * not available offline: `'s3://<key>'` literals become files of the object store (the
 * local directory itself, or temporary copies staged from and uploaded back to a bucket),
 * `ATTACH 'datatable://<name>'` (or `'datatable'`) becomes the data table's DuckDB file,
 * and a `ducklake://` literal left (not a lake ATTACH, `sql-lake.ts`) is refused with a clear error. Replacement literals are paths Sluice
 * chose, quoted as SQL strings.
 */
import { mkdirSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { sqlString } from "../../../assets/duckdb.js";
import { DucklakeReferenceError } from "../../../assets/errors.js";
import type { AssetHost } from "../../../assets/host.js";
import { checkObjectKey } from "../../../assets/object-store.js";
import { detectSqlLiterals } from "../../detect-sql.js";
import { replaceLiterals, sqlLiterals } from "./sql-text.js";

/** The rewritten script and what to do around it. */
export interface StagedSql {
  readonly sql: string;
  /** DuckDB files the script attaches (locked while it runs). */
  readonly files: readonly string[];
  /** After a successful run: upload staged writes to the bucket. */
  finish(): Promise<void>;
  /** Always: remove temporary files. */
  cleanup(): Promise<void>;
}

const GLOB = /[*?[]/;
const ATTACH_BEFORE = /\bATTACH\s+(?:DATABASE\s+)?(?:IF\s+NOT\s+EXISTS\s+)?$/i;

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const full = join(d, e.name);
      if (e.isDirectory()) await walk(full);
      else if (e.isFile()) out.push(full);
    }
  };
  await walk(dir);
  return out;
}

function globRegExp(pattern: string): RegExp {
  // "\u0000" stands for `**` while single `*` is replaced.
  const re = pattern
    .replace(/[.+^${}()|\\]/g, "\\$&")
    .replace(/\*\*/g, "\u0000")
    .replace(/\*/g, "[^/]*")
    .replace(/\?/g, "[^/]")
    .replaceAll("\u0000", ".*");
  return new RegExp(`^${re}$`);
}

/** A key from an `s3://` literal (`s3:///k` and `s3://k` are the same key). */
function keyOf(value: string): string {
  return value.slice("s3://".length).replace(/^\/+/, "");
}

/** Rewrite a script's asset literals for `assets` (see the module comment). */
export async function stageSqlAssets(sql: string, assets: AssetHost): Promise<StagedSql> {
  const writes = new Set(
    detectSqlLiterals(sql)
      .detections.filter((d) => d.access === "write")
      .map((d) => d.uri),
  );
  const files = new Set<string>();
  const uploads: Array<{ local: string; key: string }> = [];
  let tmp: string | undefined;
  const tmpDir = async () => (tmp ??= await mkdtemp(join(tmpdir(), "sluice-sql-")));
  const replacements = new Map<number, string>();
  const store = assets.objects;
  for (const lit of sqlLiterals(sql)) {
    const v = lit.value;
    if (/^ducklake:\/\//i.test(v)) throw new DucklakeReferenceError(v);
    if (/^s3:\/\//i.test(v)) {
      const key = checkObjectKey(keyOf(v));
      const isWrite = writes.has(v);
      if (store.localPath) {
        // A glob cannot be resolved through symlinks; its segments are checked (no `..`), the rest is DuckDB's.
        const segments = key.split("/");
        const path = GLOB.test(key) ? join(store.localPath(segments[0]!), ...segments.slice(1)) : store.localPath(key);
        if (isWrite) mkdirSync(dirname(path), { recursive: true });
        replacements.set(lit.start, sqlString(path));
        continue;
      }
      const dir = await tmpDir();
      const local = join(dir, `${replacements.size}`, ...key.split("/"));
      mkdirSync(dirname(local), { recursive: true });
      if (isWrite) uploads.push({ local, key });
      else if (GLOB.test(key)) {
        const prefix = key.slice(0, key.search(GLOB));
        const re = globRegExp(key);
        for (const k of (await store.list(prefix)).filter((k) => re.test(k))) {
          const target = join(dir, `${replacements.size}`, ...k.split("/"));
          mkdirSync(dirname(target), { recursive: true });
          await writeFile(target, (await store.get(k)) ?? new Uint8Array());
        }
      } else {
        const body = await store.get(key);
        if (body) await writeFile(local, body);
      }
      replacements.set(lit.start, sqlString(local));
      continue;
    }
    const m = /^datatable(?::\/\/([A-Za-z0-9_-]+))?\/?$/i.exec(v);
    if (m && ATTACH_BEFORE.test(sql.slice(0, lit.start))) {
      const file = assets.datatables.file(m[1] ?? "main");
      files.add(file);
      replacements.set(lit.start, sqlString(file));
    }
  }
  return {
    sql: replaceLiterals(sql, (lit) => replacements.get(lit.start)),
    files: [...files],
    async finish() {
      for (const u of uploads) {
        const found = await listFiles(u.local);
        if (found.length === 0) {
          const body = await readFile(u.local).catch(() => undefined);
          if (body) await store.put(u.key, new Uint8Array(body));
          continue;
        }
        for (const f of found)
          await store.put(
            `${u.key.replace(/\/+$/, "")}/${relative(u.local, f).split(sep).join("/")}`,
            new Uint8Array(await readFile(f)),
          );
      }
    },
    async cleanup() {
      if (tmp) await rm(tmp, { recursive: true, force: true });
    },
  };
}
