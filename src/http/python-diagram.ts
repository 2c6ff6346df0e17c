/**
 * The workflow diagram of a Python workflow file, built by `python3 -m wmill._diagram` from its
 * source (Python's own `ast`; nothing is imported or run) in the structure of `src/diagram/model.ts`.
 */
import { execFile } from "node:child_process";
import { delimiter } from "node:path";
import type { WorkflowDiagram } from "../diagram/model.js";
import { WorkflowSyntaxError } from "../diagram/errors.js";
import { PythonUnavailableError } from "../loader/python/errors.js";
import { pythonSdkDir } from "../loader/python/sdk-path.js";

/**
 * Analyses the Python file at `path` (shown as `fileName`).
 * @throws WorkflowSyntaxError when the file does not parse; PythonUnavailableError without python3
 */
export function analyzePythonFile(path: string, fileName: string, env = process.env): Promise<WorkflowDiagram> {
  const python = env.SLUICE_PYTHON ?? "python3";
  const pythonPath = [pythonSdkDir(), env.PYTHONPATH].filter(Boolean).join(delimiter);
  return new Promise((resolve, reject) => {
    execFile(
      python,
      ["-m", "wmill._diagram", path, fileName],
      { env: { ...env, PYTHONPATH: pythonPath, PYTHONDONTWRITEBYTECODE: "1" }, timeout: 30_000 },
      (err, stdout, stderr) => {
        if (err && (err as NodeJS.ErrnoException).code === "ENOENT")
          return reject(new PythonUnavailableError(python, err));
        let out: WorkflowDiagram | { error: { message: string; line: number | null } };
        try {
          out = JSON.parse(stdout) as typeof out;
        } catch {
          return reject(new Error(`could not analyse ${fileName}: ${(stderr || String(err)).trim().slice(-1000)}`));
        }
        if ("error" in out)
          return reject(
            new WorkflowSyntaxError(fileName, [
              { line: out.error.line ?? 1, column: 1, message: out.error.message, tsCode: 0 },
            ]),
          );
        resolve(out);
      },
    );
  });
}
