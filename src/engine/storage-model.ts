/**
 * The multi-server storage check of seed 002: a project deployed to several servers
 * needs shared state (Postgres) unless every workflow is intentionally `local: true`.
 *
 * | project shape                      | needs                                   |
 * | ---------------------------------- | --------------------------------------- |
 * | all workflows global               | a shared database (SLUICE_DATABASE_URL) |
 * | every workflow `local: true`       | nothing: each server keeps its own file |
 * | local and global workflows mixed   | a shared database (SLUICE_DATABASE_URL) |
 *
 * Sluice's own workflows (named `sluice:…`) are not the user's choice and are not counted.
 */
import { SluiceError } from "../sdk/errors.js";

/** A multi-server setup without shared storage runs global workflows. */
export class StorageModelError extends SluiceError {
  constructor(message: string) {
    super("STORAGE_MODEL", message);
  }
}

/**
 * Validates the storage choice of a setup with `servers` servers.
 * @throws StorageModelError when servers > 1, the store is not shared and a workflow is global
 */
export function checkStorageModel(input: {
  servers: number;
  sharedStore: boolean;
  workflows: Array<{ name: string; local?: boolean }>;
}): void {
  if (input.servers <= 1 || input.sharedStore) return;
  // Sluice's own workflows (`sluice:…`, e.g. pipeline plans) follow the user's choice.
  const user = input.workflows.filter((w) => !w.name.startsWith("sluice:"));
  const global = user.filter((w) => !w.local).map((w) => w.name);
  if (global.length === 0) return;
  const local = user.filter((w) => w.local).map((w) => w.name);
  const list = (names: string[]) =>
    names.slice(0, 5).join(", ") + (names.length > 5 ? ` and ${names.length - 5} more` : "");
  const fix = "set SLUICE_DATABASE_URL (or --db postgres://…) so every server shares one Postgres database";
  throw new StorageModelError(
    local.length > 0
      ? `this ${input.servers}-server setup mixes local workflows (${list(local)}) with global ones (${list(global)}), so it needs shared workflow state: ${fix}`
      : `this ${input.servers}-server setup has global workflows (${list(global)}) but no shared workflow state: ${fix}, or set local: true on every workflow if running once per server is intended`,
  );
}
