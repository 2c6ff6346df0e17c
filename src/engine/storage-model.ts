/**
 * The multi-server storage check of seed 002: a project deployed to several servers
 * needs shared state (Postgres) unless every workflow is intentionally `local: true`.
 *
 * | project shape                      | needs                                   |
 * | ---------------------------------- | --------------------------------------- |
 * | all workflows global               | a shared database (SLUICE_DATABASE_URL) |
 * | every workflow `local: true`       | nothing: each server keeps its own file |
 * | local and global workflows mixed   | a shared database (SLUICE_DATABASE_URL) |
 * | worker commands (Go, Python…)      | a shared database (SLUICE_DATABASE_URL) |
 *
 * The workflows of worker commands (`sluice.json` `workers`) are registered over the worker
 * protocol once their processes start, after this check, and have no local opt-out (seed 002: "Go
 * workflows do not have the source-level local opt-out"): the commands count as global workflows.
 * Sluice's own workflows (named `sluice:…`) are not the user's choice and are not counted.
 */
import { isInternalWorkflow } from "../core/internal-workflows.js";
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
  /** The `sluice.json` worker commands this server starts, as `[label] command`; default none. */
  workerCommands?: string[];
}): void {
  if (input.servers <= 1 || input.sharedStore) return;
  const list = (names: string[]) =>
    names.slice(0, 5).join(", ") + (names.length > 5 ? ` and ${names.length - 5} more` : "");
  const fix = "set SLUICE_DATABASE_URL (or --db postgres://…) so every server shares one Postgres database";
  const commands = input.workerCommands ?? [];
  if (commands.length > 0)
    throw new StorageModelError(
      `this ${input.servers}-server setup starts worker commands (${list(commands)}) whose workflows have no local opt-out, so it needs shared workflow state: ${fix}`,
    );
  // Sluice's own workflows (`sluice:…`, e.g. pipeline plans) follow the user's choice.
  const user = input.workflows.filter((w) => !isInternalWorkflow(w.name));
  const global = user.filter((w) => !w.local).map((w) => w.name);
  if (global.length === 0) return;
  const local = user.filter((w) => w.local).map((w) => w.name);
  throw new StorageModelError(
    local.length > 0
      ? `this ${input.servers}-server setup mixes local workflows (${list(local)}) with global ones (${list(global)}), so it needs shared workflow state: ${fix}`
      : `this ${input.servers}-server setup has global workflows (${list(global)}) but no shared workflow state: ${fix}, or set local: true on every workflow if running once per server is intended`,
  );
}
