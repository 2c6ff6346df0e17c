/** Asks Python what each file defines (`python3 -m wmill._inspect`), in one process for all files. */
import { execFile } from "node:child_process";
import { delimiter } from "node:path";
import { PythonUnavailableError } from "./errors.js";
import { pythonSdkDir } from "./sdk-path.js";

/** One parameter of a Python `main`: its name, whether it has no default, its type hint. */
export interface PythonParam {
  name: string;
  required: boolean;
  type: string | null;
}

/** What one file defines, or why it failed to import. */
export type PythonFileInfo =
  | {
      file: string;
      kind: "workflow" | "script" | "none";
      /** Null when `main` takes `*args`/`**kwargs` (payload not checked by name). */
      params: PythonParam[] | null;
      tasks: string[];
    }
  | { file: string; error: { message: string; line: number | null } };

/**
 * Imports each file in a fresh Python process and describes it.
 * @throws PythonUnavailableError when the interpreter cannot be started
 */
export function inspectPythonFiles(
  python: string,
  cwd: string,
  files: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<PythonFileInfo[]> {
  if (files.length === 0) return Promise.resolve([]);
  const pythonPath = [pythonSdkDir(), env.PYTHONPATH].filter(Boolean).join(delimiter);
  return new Promise((resolve, reject) => {
    execFile(
      python,
      ["-m", "wmill._inspect", ...files],
      {
        cwd,
        env: { ...env, PYTHONPATH: pythonPath, PYTHONDONTWRITEBYTECODE: "1" },
        maxBuffer: 64 * 1024 * 1024,
        timeout: 120_000,
      },
      (err, stdout, stderr) => {
        if (err && (err as NodeJS.ErrnoException).code === "ENOENT")
          return reject(new PythonUnavailableError(python, err));
        const last = stdout.trim().split("\n").pop() ?? "";
        try {
          resolve(JSON.parse(last) as PythonFileInfo[]);
        } catch {
          reject(new Error(`could not inspect the Python files: ${(stderr || String(err)).trim().slice(-2000)}`));
        }
      },
    );
  });
}
