/**
 * A CLI command's own registration of the project's plain DuckDB SQL and Bash scripts
 * (`pipeline/runtime/plain-scripts.ts`), for commands that load the project without a pipeline
 * host: `sluice preview` runs one, `sluice enqueue` finds one no running process published yet.
 */
import { resolveAssetConfig } from "../assets/config.js";
import { type AssetHost, openAssetHost } from "../assets/host.js";
import type { Engine } from "../engine/engine.js";
import type { PipelineCatalog } from "../pipeline/runtime/catalog.js";
import { PlainScripts } from "../pipeline/runtime/plain-scripts.js";

/** A command's plain scripts and how to release what running them opened. */
export interface CommandPlainScripts {
  readonly scripts: PlainScripts;
  /** Stops the script bridge and closes the asset storage, if a run opened them. */
  close(): Promise<void>;
}

/**
 * The plain scripts of the project at `root` for `engine`: a run of one reads the project's asset
 * storage as `sluice.json` configures it (`assets`: object store, data tables, lakes), opened on
 * first use. Call `scripts.sync()` to register them.
 */
export function commandPlainScripts(
  engine: Engine,
  root: string,
  catalog: PipelineCatalog,
  assets: unknown,
  env: NodeJS.ProcessEnv,
): CommandPlainScripts {
  let opened: Promise<AssetHost> | null = null;
  const scripts = new PlainScripts({
    engine,
    root,
    catalog: () => catalog,
    assets: () => (opened ??= openAssetHost(resolveAssetConfig(root, assets, env), engine.store)),
    subprocessSettings: () => ({}),
  });
  return {
    scripts,
    async close() {
      await scripts.stop();
      await (await opened?.catch(() => null))?.shared?.close();
    },
  };
}
