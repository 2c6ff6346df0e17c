"""Asset helpers of Windmill's ``wmill`` (seed 001): object storage (``write_s3_file``,
``load_s3_file``), resources, data tables, DuckLake tables, volumes and the run's partition.

Inside a run that Sluice's Python host executes (a workflow, ``@task`` or script, e.g. one
called with ``task_script``), each call goes to the Sluice worker running it over the host's
pipes and waits for the answer (from any thread, sync or async code). In a script Sluice
starts as its own process (a pipeline member, a Bash script's ``wmill`` command) it goes over
the pipeline bridge's socket (``SLUICE_BRIDGE``, ``SLUICE_BRIDGE_TOKEN``). Writes made in a
pipeline run are recorded as the run's assets and fire the cascade when the run succeeds;
elsewhere they are stored and fire nothing. These calls are not checkpointed: a workflow that
must not repeat a write on replay makes it inside ``step``.
"""
import base64
import io
import json
import os
import socket
import uuid

from . import _runtime
from .client import SluiceError

S3Object = dict


def _call(op, **args):
    ex = _runtime.current.get()
    call = getattr(ex, "asset_call", None)
    if call is not None:
        return call(op, args)
    return _bridge_call(op, args)


def _bridge_call(op, args):
    path = os.environ.get("SLUICE_BRIDGE")
    token = os.environ.get("SLUICE_BRIDGE_TOKEN")
    if not path or not token:
        raise SluiceError("wmill asset helpers need Sluice: run this script with sluice dev / sluice worker", "ASSET_HOST_MISSING")
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
        raise SluiceError("the Sluice bridge closed the connection without an answer", "BRIDGE_FAILED")
    res = json.loads(buf.decode("utf-8"))
    if not res.get("ok"):
        err = res.get("error") or {}
        raise SluiceError(err.get("message", "bridge call failed"), err.get("code", "BRIDGE_FAILED"))
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
    """A file's bytes. Raises ``SluiceError`` (code ``S3_OBJECT_NOT_FOUND``, naming the key and the
    object store) when it does not exist, as Windmill's client fails on the download's 404."""
    return base64.b64decode(_call("load_s3_file", key=_key(s3object), required=True))


def load_s3_file_reader(s3object, s3_resource_path=None):
    return io.BufferedReader(io.BytesIO(load_s3_file(s3object, s3_resource_path)))


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
