/** Volumes (`volume://<name>/<path>`): named directories, files resolved safely inside them. */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { type AssetConfig, volumeDir } from "./config.js";
import { resolveInside } from "./safe-path.js";

/** Reads and writes files of named volumes. */
export class Volumes {
  constructor(private readonly config: AssetConfig) {}

  /** The directory of a volume (created on first use). */
  async dir(name: string): Promise<string> {
    const dir = volumeDir(this.config, name);
    await mkdir(dir, { recursive: true });
    return dir;
  }

  /** The file `path` of volume `name`. @throws AssetPathError when it would leave the volume */
  async file(name: string, path: string): Promise<string> {
    return resolveInside(await this.dir(name), path, "volume path");
  }

  /** Writes (atomically replaces) a file of a volume. */
  async write(name: string, path: string, data: Uint8Array | string): Promise<void> {
    const file = await this.file(name, path);
    await mkdir(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeFile(tmp, data);
    await rename(tmp, file);
  }

  /** A file's bytes, or `undefined` when absent. */
  async read(name: string, path: string): Promise<Uint8Array | undefined> {
    try {
      return new Uint8Array(await readFile(await this.file(name, path)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw err;
    }
  }
}
