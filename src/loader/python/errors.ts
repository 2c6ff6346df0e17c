/** Errors of Python workflows. */
import { SluiceError } from "../../sdk/errors.js";
import { RuntimeLostError } from "../../worker/control.js";

/** What Python reported for an exception: its class name, message and traceback. */
export interface PythonErrorInfo {
  name?: string;
  message?: string;
  code?: string;
  traceback?: string;
}

/** An exception raised by Python code (a workflow, task, step body or script); `name` is the Python class. */
export class PythonError extends Error {
  /** The Python traceback, kept with the run's error. */
  readonly traceback: string | undefined;
  readonly code: string | undefined;

  constructor(info: PythonErrorInfo) {
    super(info.message ?? "the Python code failed");
    this.name = info.name ?? "Exception";
    this.traceback = info.traceback;
    this.code = info.code;
  }
}

/** The Python process died (killed, out of memory) while running this attempt: the run is retried. */
export class PythonHostExitedError extends RuntimeLostError {
  constructor(detail: string) {
    super(
      "PYTHON_HOST_EXITED",
      `the Python process running this attempt exited (${detail}); the run is retried from its checkpoint`,
    );
  }
}

/** python3 could not be started. */
export class PythonUnavailableError extends SluiceError {
  constructor(python: string, cause: unknown) {
    super(
      "PYTHON_UNAVAILABLE",
      `${python} could not be started (${(cause as Error)?.message ?? String(cause)}): install python3 (3.9 or later) or set SLUICE_PYTHON to its path`,
      { cause },
    );
  }
}

/** A Python file failed to import when it was loaded (syntax or import error), with its line. */
export class PythonLoadError extends SluiceError {
  constructor(
    readonly file: string,
    readonly line: number | null,
    message: string,
  ) {
    super("PYTHON_LOAD_ERROR", `${file}${line ? `:${line}` : ""}: ${message} (its workflows are not loaded)`);
  }
}

/** `SLUICE_PYTHON_HOST` names no Python host. */
export class InvalidPythonHostError extends SluiceError {
  constructor(value: string) {
    super(
      "INVALID_PYTHON_HOST",
      `SLUICE_PYTHON_HOST=${JSON.stringify(value)} is not a Python host: use "protocol" (the worker protocol, the default) or "bridge" (the stdio host)`,
    );
  }
}
