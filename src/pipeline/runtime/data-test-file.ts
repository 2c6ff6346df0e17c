/**
 * Where a custom data test `// data_test <path>` lives: `<root>/<path>.sql`, or `<root>/<path>`
 * when the path ends in `.sql`, inside the project. One rule for the run, which reads it, and
 * for loading, which reports a path with no file.
 */
import { resolve, sep } from "node:path";

/** The file of custom data test `path` under project `root`, or undefined when it would be outside the project. */
export function dataTestFile(root: string, path: string): string | undefined {
  const file = resolve(root, path.endsWith(".sql") ? path : `${path}.sql`);
  return file.startsWith(resolve(root) + sep) ? file : undefined;
}
