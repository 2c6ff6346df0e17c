/**
 * Naming of runnable modules by path (Windmill's convention): a module is named by its
 * path relative to the project root without extension (`f/data/etl`); the entry of a
 * folder-layout module `x__mod/script.ts` is named `x`. `taskScript("./t.ts")` from a
 * workflow resolves inside that workflow's `__mod/` folder.
 */

const EXT = /\.(m?[jt]s|py|sh|sql)$/;

/** The runnable name of the module at `relPath` (relative to the project root, `/`-separated). */
export function moduleName(relPath: string): string {
  const noExt = relPath.replace(EXT, "");
  const m = /^(.*)__mod\/script$/.exec(noExt);
  return m ? m[1]! : noExt;
}

/**
 * The runnable name a `taskScript(path)` / `taskFlow(path)` call refers to, from the
 * workflow module at `fromModule` (its project-relative path, or null in-process).
 */
export function moduleScriptName(path: string, fromModule: string | null): string {
  const clean = path.trim();
  if (clean.startsWith("./") || clean.startsWith("../")) {
    if (!fromModule) return clean.replace(/^\.\//, "").replace(EXT, "");
    const base = moduleName(fromModule);
    return normalise(`${base}__mod/${clean}`).replace(EXT, "");
  }
  return clean.replace(/^\/+/, "").replace(EXT, "");
}

function normalise(path: string): string {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return out.join("/");
}
