/**
 * The Python side of the script bridge, written to a temporary folder when the bridge
 * starts: the `wmill` module (windmill's Python names, talking to Sluice over the bridge
 * socket), the runner that imports a script and calls its `main`, and a `wmill` command
 * for Bash scripts.
 */

/** `wmill/__init__.py`. */
export const WMILL_PY = String.raw`"""Sluice's wmill module for pipeline scripts.

It talks to the Sluice process that started this script over a local socket
(SLUICE_BRIDGE, authenticated by SLUICE_BRIDGE_TOKEN). Writes made through it are
recorded as the run's assets and fire the pipeline cascade when the run succeeds.
"""
import base64
import io
import json
import os
import socket
import uuid

S3Object = dict


class SluiceError(Exception):
    """An error reported by Sluice; code is stable (e.g. RESOURCE_NOT_FOUND)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def _call(op, **args):
    path = os.environ.get("SLUICE_BRIDGE")
    token = os.environ.get("SLUICE_BRIDGE_TOKEN")
    if not path or not token:
        raise SluiceError("ASSET_HOST_MISSING", "wmill needs Sluice: run this script with sluice dev / sluice worker")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
        sock.sendall((json.dumps({"token": token, "op": op, "args": args}) + "\n").encode("utf-8"))
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = sock.recv(1 << 16)
            if not chunk:
                break
            buf += chunk
    finally:
        sock.close()
    if not buf:
        raise SluiceError("BRIDGE_FAILED", "the Sluice bridge closed the connection without an answer")
    res = json.loads(buf.decode("utf-8"))
    if not res.get("ok"):
        err = res.get("error") or {}
        raise SluiceError(err.get("code", "BRIDGE_FAILED"), err.get("message", "bridge call failed"))
    return res.get("value")


def _key(s3object):
    if isinstance(s3object, str):
        key = s3object
    elif isinstance(s3object, dict):
        key = s3object.get("s3")
    else:
        key = getattr(s3object, "s3", None)
    if not key:
        raise ValueError("expected an S3 object such as {'s3': 'demo/raw.json'}")
    if key.startswith("s3://"):
        key = key[5:]
    return key.lstrip("/")


def _bytes(content):
    if hasattr(content, "read"):
        content = content.read()
    if isinstance(content, str):
        content = content.encode("utf-8")
    return bytes(content)


def write_s3_file(s3object, file_content, s3_resource_path=None, content_type=None, content_disposition=None):
    """Write a file to object storage; returns {'s3': key}."""
    if s3object is None:
        s3object = {"s3": "windmill_uploads/" + str(uuid.uuid4())}
    data = base64.b64encode(_bytes(file_content)).decode("ascii")
    return {"s3": _call("write_s3_file", key=_key(s3object), data=data, content_type=content_type)}


def load_s3_file(s3object, s3_resource_path=None):
    """A file's bytes, or None when it does not exist."""
    data = _call("load_s3_file", key=_key(s3object))
    return None if data is None else base64.b64decode(data)


def load_s3_file_reader(s3object, s3_resource_path=None):
    data = load_s3_file(s3object, s3_resource_path)
    return None if data is None else io.BufferedReader(io.BytesIO(data))


def get_resource(path, none_if_undefined=False):
    return _call("get_resource", path=path, none_if_undefined=none_if_undefined)


def set_resource(path, value, resource_type="any"):
    _call("set_resource", path=path, value=value, type=resource_type)


class _Query:
    def __init__(self, name, sql, params):
        self._name, self._sql, self._params = name, sql, list(params)

    def fetch(self):
        return _call("datatable_query", name=self._name, sql=self._sql, params=self._params)

    def fetch_one(self):
        rows = self.fetch()
        return rows[0] if rows else None


class DataTableClient:
    """A data table: query(sql, *args) with $1, $2, ... bound, never spliced."""

    def __init__(self, name="main"):
        self.name = name

    def query(self, sql, *args):
        return _Query(self.name, sql, args)


def datatable(name="main"):
    return DataTableClient(name)


class DuckLakeClient:
    """A lake: read(table, ...), upsert_partition(table, rows, key=None, partition=None), append_partition(table, rows, partition=None)."""

    def __init__(self, name="main"):
        self.name = name

    def read(self, table, partition=None, version=None, timestamp=None):
        return _call("ducklake_read", name=self.name, table=table, partition=partition, version=version, timestamp=timestamp)

    def upsert_partition(self, table, rows, key=None, partition=None):
        return _call("ducklake_write", name=self.name, table=table, rows=list(rows), mode="merge" if key else "replace", key=key, partition=partition)

    def append_partition(self, table, rows, partition=None):
        return _call("ducklake_write", name=self.name, table=table, rows=list(rows), mode="append", partition=partition)


def ducklake(name="main"):
    return DuckLakeClient(name)


def write_volume_file(volume, path, content):
    _call("write_volume_file", volume=volume, path=path, data=base64.b64encode(_bytes(content)).decode("ascii"))


def load_volume_file(volume, path):
    data = _call("load_volume_file", volume=volume, path=path)
    return None if data is None else base64.b64decode(data)


def volume_path(volume):
    return _call("volume_path", volume=volume)


def get_partition():
    return _call("partition")
`;

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
        data = wmill.load_s3_file({"s3": rest[0]})
        if data is None:
            raise SystemExit("wmill: s3://" + rest[0] + " does not exist")
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
