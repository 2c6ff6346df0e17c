/** `s3://` objects as files in a local directory (the zero set-up default). */
import { mkdir, readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import type { ObjectStore } from "./object-store.js";
import { checkObjectKey, resolveInside } from "./safe-path.js";

/** An object store on a local directory; writes are atomic (temp file + rename). */
export class LocalObjectStore implements ObjectStore {
  readonly kind = "local" as const;
  readonly label: string;

  constructor(readonly dir: string) {
    this.label = dir;
  }

  /** The file holding `key`. @throws AssetPathError for a key that leaves the directory */
  localPath(key: string): string {
    return resolveInside(this.dir, checkObjectKey(key), "S3 key");
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(this.localPath(key)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "EISDIR")
        return undefined;
      throw err;
    }
  }

  async put(key: string, body: Uint8Array): Promise<void> {
    const file = this.localPath(key);
    await mkdir(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeFile(tmp, body);
    await rename(tmp, file);
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const full = join(dir, e.name);
        if (e.isDirectory()) await walk(full);
        else if (e.isFile() && !e.name.endsWith(".tmp")) out.push(relative(this.dir, full).split(sep).join("/"));
      }
    };
    await walk(this.dir);
    return out.filter((k) => k.startsWith(prefix)).sort();
  }

  async delete(key: string): Promise<void> {
    await rm(this.localPath(key), { force: true });
  }
}
