/**
 * Resources (`$res:<path>`): named JSON values stored by Sluice in the store's key-value
 * records, so they work the same on SQLite and Postgres.
 */
import type { Store } from "../store/types.js";
import { AssetPathError, ResourceNotFoundError } from "./errors.js";

const PATH = /^[A-Za-z0-9_.@-]+(\/[A-Za-z0-9_.@-]+)*$/;
const KV_PREFIX = "resource:";

/** A stored resource. */
export interface ResourceRecord {
  readonly value: unknown;
  /** The resource type (`any` unless given). */
  readonly type: string;
  readonly updatedAt: number;
}

/** Normalise a resource path (`$res:f/team/pg`, `res://f/team/pg` or `f/team/pg`). @throws AssetPathError */
export function resourcePath(path: string): string {
  const p = String(path ?? "")
    .trim()
    .replace(/^\$res:/, "")
    .replace(/^res:\/\//, "");
  if (!PATH.test(p) || p.split("/").some((s) => s === "." || s === "..")) {
    throw new AssetPathError(
      "resource path",
      String(path),
      "use segments of letters, digits and _ . @ - separated by /",
    );
  }
  return p;
}

/** Reads and writes resources in a store. */
export class Resources {
  constructor(private readonly store: Store) {}

  /** The resource, or `undefined` when absent. */
  async read(path: string): Promise<ResourceRecord | undefined> {
    const raw = await this.store.kvGet(KV_PREFIX + resourcePath(path));
    return raw === null ? undefined : (JSON.parse(raw) as ResourceRecord);
  }

  /** The resource's value. @throws ResourceNotFoundError unless `undefinedIfEmpty` */
  async get(path: string, undefinedIfEmpty = false): Promise<unknown> {
    const rec = await this.read(path);
    if (rec === undefined) {
      if (undefinedIfEmpty) return undefined;
      throw new ResourceNotFoundError(resourcePath(path));
    }
    return rec.value;
  }

  /** Creates or replaces a resource. */
  async set(path: string, value: unknown, type = "any"): Promise<void> {
    const record: ResourceRecord = { value: value ?? null, type, updatedAt: Date.now() };
    await this.store.kvPut(KV_PREFIX + resourcePath(path), JSON.stringify(record));
  }

  /** Every resource path, sorted. */
  async list(): Promise<string[]> {
    return (await this.store.kvList(KV_PREFIX)).map((r) => r.key.slice(KV_PREFIX.length)).sort();
  }
}
