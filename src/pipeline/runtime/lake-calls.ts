/**
 * The `ducklake()` helper calls of pipeline scripts written in code, found by each language's
 * own parser so the static graph sees a managed write from code as the script's output (seed
 * 001: "use the wmill.ducklake helpers … which give the same managed, idempotent write from
 * arbitrary code"): TypeScript and JavaScript through the TypeScript compiler API
 * (`pipeline/lake-calls-ts.ts`, the package loaded on first use), Python through its own `ast`
 * (`python3 -m wmill._lake_calls`, one process for every Python script of a scan).
 *
 * Only scripts whose text mentions `ducklake` are parsed. Findings are kept by path and source,
 * so a rescan (a dev reload) parses only what changed. The scan is synchronous (the catalog is
 * read synchronously by every command and by the dev host's loader transform), so Python runs
 * with `spawnSync`.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { delimiter } from "node:path";
import type TS from "typescript";
import type { CodeFindings } from "../detect-types.js";
import { languageFromPath } from "../language.js";
import { tsLakeCalls } from "../lake-calls-ts.js";
import { pythonSdkDir } from "../../loader/python/sdk-path.js";

/** One script's path (project-relative) and source. */
interface Source {
  readonly path: string;
  readonly source: string;
}

let typescript: typeof TS | undefined;
const loadTypescript = (): typeof TS => (typescript ??= createRequire(import.meta.url)("typescript") as typeof TS);

/** Findings by `path \0 source` (bounded: a long dev session edits many versions). */
const cache = new Map<string, CodeFindings>();
const CACHE_LIMIT = 1000;
const keyOf = (s: Source): string => `${s.path}\u0000${s.source}`;

function remember(s: Source, f: CodeFindings): void {
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(keyOf(s), f);
}

const unlooked = (line: number, code: string, message: string): CodeFindings => ({
  detections: [],
  dynamic: [],
  clients: [],
  warnings: [{ line, code, message }],
});

/** Runs `python -m wmill._lake_calls` over `files`: findings by path, or one warning for each file when it cannot run. */
function pythonLakeCalls(files: readonly Source[], env: NodeJS.ProcessEnv): Map<string, CodeFindings> {
  const python = env.SLUICE_PYTHON ?? "python3";
  const out = new Map<string, CodeFindings>();
  const fail = (why: string): Map<string, CodeFindings> => {
    for (const f of files)
      out.set(
        f.path,
        unlooked(
          0,
          "DETECT_PYTHON_UNAVAILABLE",
          `${why}, so this script's ducklake() writes are not in the graph; install python3 (or set SLUICE_PYTHON), or declare them with \`# asset write ducklake://<lake>/<table>\``,
        ),
      );
    return out;
  };
  const r = spawnSync(python, ["-m", "wmill._lake_calls"], {
    input: JSON.stringify(files),
    env: {
      ...env,
      PYTHONPATH: [pythonSdkDir(), env.PYTHONPATH].filter(Boolean).join(delimiter),
      PYTHONDONTWRITEBYTECODE: "1",
    },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: 30_000,
  });
  if (r.error) return fail(`${python} could not be started (${r.error.message})`);
  try {
    const parsed = JSON.parse(r.stdout) as Record<string, CodeFindings>;
    for (const f of files) if (parsed[f.path]) out.set(f.path, parsed[f.path]!);
    return out;
  } catch {
    return fail(`${python} -m wmill._lake_calls failed (${(r.stderr || `exit ${r.status}`).trim().slice(-500)})`);
  }
}

/**
 * The `ducklake()` helper calls of each script of `sources` that has any, by path (TypeScript,
 * JavaScript and Python; other languages have none).
 */
export function lakeCallsOf(
  sources: readonly Source[],
  env: NodeJS.ProcessEnv = process.env,
): Map<string, CodeFindings> {
  const out = new Map<string, CodeFindings>();
  const python: Source[] = [];
  for (const s of sources) {
    if (!s.source.includes("ducklake")) continue;
    const known = cache.get(keyOf(s));
    if (known) {
      out.set(s.path, known);
      continue;
    }
    const language = languageFromPath(s.path);
    if (language === "python") python.push(s);
    else if (language === "typescript" || language === "javascript") {
      const found = tsLakeCalls(loadTypescript(), s.source, s.path);
      remember(s, found);
      out.set(s.path, found);
    }
  }
  if (python.length > 0) {
    const found = pythonLakeCalls(python, env);
    for (const s of python) {
      const f = found.get(s.path);
      if (!f) continue;
      // a failure to run Python is not kept: the next scan tries again
      if (!f.warnings.some((w) => w.code === "DETECT_PYTHON_UNAVAILABLE")) remember(s, f);
      out.set(s.path, f);
    }
  }
  return out;
}
