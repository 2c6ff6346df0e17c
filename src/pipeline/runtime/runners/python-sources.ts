/**
 * The Python side of the script bridge, written to a temporary folder when the bridge
 * starts: the runner that imports a script and calls its `main`, and a `wmill` command for
 * Bash scripts. Both use Sluice's Python SDK (`sdk-python/wmill`, on `PYTHONPATH`), whose
 * asset helpers talk to Sluice over the bridge socket in a script's own process.
 */

/** `runner.py <script>`: imports the script and calls `main` with the JSON arguments. */
export const RUNNER_PY = String.raw`import importlib.util
import inspect
import json
import os
import sys


def run():
    path = sys.argv[1]
    with open(os.environ["SLUICE_ARGS_FILE"], encoding="utf-8") as f:
        args = json.load(f)
    sys.argv = [path]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec = importlib.util.spec_from_file_location("__sluice_script__", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["__sluice_script__"] = mod
    spec.loader.exec_module(mod)
    fn = getattr(mod, "main", None)
    if not callable(fn):
        raise SystemExit("sluice: " + path + " has no main function; add def main(...):")
    if isinstance(args, list):
        result = fn(*args)
    else:
        params = inspect.signature(fn).parameters
        kwargs = any(p.kind == p.VAR_KEYWORD for p in params.values())
        dropped = [k for k in args if not kwargs and k not in params and k != "partition"]
        if dropped:
            print("sluice: ignored argument(s) " + ", ".join(dropped), file=sys.stderr)
        result = fn(**{k: v for k, v in args.items() if kwargs or k in params})
    with open(os.environ["SLUICE_RESULT_FILE"], "w", encoding="utf-8") as f:
        json.dump(result, f, default=str)


run()
`;

/** `bin/wmill`: the bridge for Bash scripts (write-s3, load-s3, get-resource, set-resource, partition). */
export const WMILL_CLI = String.raw`#!/usr/bin/env python3
"""wmill <command>: Sluice's asset bridge for shell scripts.

  wmill write-s3 <key> [<file>|-]   write a file (default: stdin) to s3://<key>
  wmill load-s3 <key>               print s3://<key> to stdout
  wmill get-resource <path>         print a resource as JSON
  wmill set-resource <path> <json>  create or replace a resource
  wmill write-volume <volume> <path> [<file>|-]
  wmill partition                   print the run's partition (empty when none)
"""
import json
import sys

import wmill


def read_input(args):
    if not args or args[0] == "-":
        return sys.stdin.buffer.read()
    with open(args[0], "rb") as f:
        return f.read()


def main(argv):
    if not argv:
        raise SystemExit(__doc__)
    cmd, rest = argv[0], argv[1:]
    if cmd == "write-s3":
        print(wmill.write_s3_file({"s3": rest[0]}, read_input(rest[1:]))["s3"])
    elif cmd == "load-s3":
        try:
            data = wmill.load_s3_file({"s3": rest[0]})
        except wmill.SluiceError as err:
            raise SystemExit("wmill: " + str(err))
        sys.stdout.buffer.write(data)
    elif cmd == "get-resource":
        print(json.dumps(wmill.get_resource(rest[0])))
    elif cmd == "set-resource":
        wmill.set_resource(rest[0], json.loads(rest[1]))
    elif cmd == "write-volume":
        wmill.write_volume_file(rest[0], rest[1], read_input(rest[2:]))
    elif cmd == "partition":
        print(wmill.get_partition() or "")
    else:
        raise SystemExit("wmill: unknown command " + cmd + "\n" + __doc__)


main(sys.argv[1:])
`;
