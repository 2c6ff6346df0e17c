/**
 * Dev reloading of what the project loader does not watch: Python, Bash and SQL pipeline
 * scripts, plain SQL and Bash scripts (`plain-scripts.ts`) and `pipeline.json` trigger rows. (TypeScript members reload through the
 * loader, whose transform rescans the pipelines.)
 */
import { relative, sep } from "node:path";
import chokidar from "chokidar";

const WATCHED = /(\.py|\.sh|\.sql|(^|\/)pipeline\.json)$/;

/** A running watcher. */
export interface PipelineWatcher {
  /** Resolves once the initial scan is done (changes before that may be missed). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/** Calls `reload` (coalesced) when a watched file under `root` changes. */
export function watchPipelines(
  root: string,
  reload: () => Promise<void>,
  onError: (err: Error) => void,
): PipelineWatcher {
  let timer: NodeJS.Timeout | null = null;
  const watcher = chokidar.watch(root, {
    ignoreInitial: true,
    ignored: (path: string) =>
      relative(root, path)
        .split(sep)
        .some((part) => part.startsWith(".") || part === "node_modules"),
    awaitWriteFinish: { stabilityThreshold: 50, pollInterval: 10 },
  });
  const changed = (path: string) => {
    if (!WATCHED.test(relative(root, path).split(sep).join("/"))) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void reload().catch(onError), 100);
  };
  watcher.on("add", changed).on("change", changed).on("unlink", changed);
  const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  return {
    ready,
    async close() {
      if (timer) clearTimeout(timer);
      await watcher.close();
    },
  };
}
