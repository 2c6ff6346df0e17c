"""Tells Sluice's loader what Python files define: ``python3 -m wmill._inspect FILE...``.

Prints one JSON line: ``[{"file", "kind": "workflow"|"script"|"none", "params", "tasks"} |
{"file", "error": {"message", "line"}}]``. A file that fails to import is reported with the
line of the error in that file; the other files are still inspected.
"""
import inspect
import json
import os
import sys
import traceback

from ._host import import_file


def params_of(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    out = []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY):
            return None
        ann = p.annotation
        out.append(
            {
                "name": p.name,
                "required": p.default is p.empty,
                "type": None if ann is p.empty else (ann if isinstance(ann, str) else getattr(ann, "__name__", str(ann))),
            }
        )
    return out


def line_in(err, file):
    if isinstance(err, SyntaxError) and err.filename and os.path.abspath(err.filename) == os.path.abspath(file):
        return err.lineno
    line = None
    for frame in traceback.extract_tb(err.__traceback__):
        if os.path.abspath(frame.filename) == os.path.abspath(file):
            line = frame.lineno
    if isinstance(err, SyntaxError) and line is None:
        return err.lineno
    return line


def describe(file):
    try:
        module = import_file(file)
    except BaseException as err:  # noqa: BLE001 - any import failure is reported, not raised
        if isinstance(err, SyntaxError):
            message = f"SyntaxError: {err.msg}"
        else:
            message = f"{type(err).__name__}: {err}"
        return {"file": file, "error": {"message": message, "line": line_in(err, file)}}
    main = getattr(module, "main", None)
    tasks = sorted(name for name, v in vars(module).items() if getattr(v, "_is_task", False) is True and hasattr(v, "fn"))
    if main is None or not callable(main):
        return {"file": file, "kind": "none", "params": None, "tasks": tasks}
    is_workflow = getattr(main, "_is_workflow", False) is True
    fn = main.fn if is_workflow else main
    return {"file": file, "kind": "workflow" if is_workflow else "script", "params": params_of(fn), "tasks": tasks}


def main(files):
    real = sys.stdout
    sys.stdout = sys.stderr  # module-level prints must not corrupt the answer
    out = [describe(f) for f in files]
    real.write(json.dumps(out) + "\n")
    real.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
