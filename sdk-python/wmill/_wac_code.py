"""The code versions the ``@workflow`` host's claims run (``wmill._wac_worker``).

A claim is pinned to a version: the content hash of a Python file's bundle, which Sluice stored
when it loaded the file (``src/loader/python/project.ts``: a ``#sluice-python {header}`` line
naming the file, its kind and its ``__mod/`` modules, then the source). Each version is fetched
from the server once (``POST /api/worker/code``) and compiled once, as a module of its own.
"""
import json
import os
import threading

from . import _host
from .client import SluiceError

#: First line of a stored Python code version (``src/loader/python/project.ts``).
BUNDLE_MARK = "#sluice-python "


class Code:
    """The code versions claims run: each fetched from the server once, compiled once."""

    def __init__(self, client, root):
        self.client = client
        self.root = root
        self.headers = {}
        self.sources = {}
        self.modules = {}
        self.lock = threading.Lock()

    def fetch(self, version):
        """Loads a version's stored code (blocking: the claim thread calls it)."""
        if version is None or version in self.headers:
            return
        code = self.client.post("/api/worker/code", {"version": version})["code"]
        if not code.startswith(BUNDLE_MARK):
            raise SluiceError(f"code version {version} is not a Python file's", "CODE_VERSION_NOT_PYTHON")
        newline = code.index("\n")
        header = json.loads(code[len(BUNDLE_MARK):newline])
        with self.lock:
            self.sources[version] = code[newline + 1:]
            self.headers[version] = header

    def header(self, claim):
        header = self.headers.get(claim.get("version"))
        if header is None:
            raise SluiceError(
                f"run {claim['runId']} of {claim['workflow']} is not pinned to a stored Python code version",
                "CODE_VERSION_MISSING")
        return header

    def kind_of(self, claim):
        return "task" if claim.get("task") else self.header(claim)["kind"]

    def module_path(self, claim):
        return self.header(claim)["file"]

    def file_of(self, claim):
        return os.path.join(self.root, self.header(claim)["file"])

    def module(self, claim):
        version = claim["version"]
        module = self.modules.get(version)
        if module is None:
            header = self.header(claim)
            module = _host.import_source(self.file_of(claim), self.sources[version], version, header.get("modules"))
            self.modules[version] = module
        return module
