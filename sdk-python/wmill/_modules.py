"""Companion modules (seed 000's ``__mod/`` folders), pinned to a workflow's code version.

A workflow ``f/x/flow.py`` (or ``f/x/flow__mod/script.py``, the folder layout) imports the
modules of its ``flow__mod/`` folder by name (``import extract``, ``from helpers.dates import
today``). Sluice stores their sources with the workflow's own, under one content hash, so a
run keeps the module code it started with after a module changes. Each code version gets its
own module objects: its imports of those names go through an ``__import__`` of its own
(the ``__builtins__`` of the version's modules), never through ``sys.modules``, so two
versions, or two workflows with an ``extract.py`` each, never share one.
"""
import builtins
import os
import types

_real_import = builtins.__import__


def companion_dir(file):
    """The ``__mod/`` folder of the workflow or script at ``file``, or None."""
    folder = os.path.dirname(os.path.abspath(file))
    if os.path.basename(folder).endswith("__mod"):
        return folder
    own = os.path.splitext(os.path.abspath(file))[0] + "__mod"
    return own if os.path.isdir(own) else None


def read_companions(file):
    """``{relative path: source}`` of the ``.py`` files in ``file``'s ``__mod/`` folder (not ``file``)."""
    folder = companion_dir(file)
    if folder is None:
        return {}
    out = {}
    me = os.path.abspath(file)
    for base, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for name in sorted(names):
            path = os.path.join(base, name)
            if name.endswith(".py") and path != me:
                with open(path, encoding="utf-8") as f:
                    out[os.path.relpath(path, folder).replace(os.sep, "/")] = f.read()
    return out


class PinnedModules:
    """The companion modules of one code version, compiled on first import."""

    def __init__(self, file, sources):
        self.folder = companion_dir(file) or os.path.dirname(os.path.abspath(file))
        self.table = {}
        for rel, source in (sources or {}).items():
            parts = rel[:-3].split("/")
            is_pkg = parts[-1] == "__init__"
            if is_pkg:
                parts = parts[:-1]
            if parts:
                self.table[".".join(parts)] = (rel, source, is_pkg)
        self.tops = {name.split(".")[0] for name in self.table}
        self.loaded = {}
        self.builtins = dict(builtins.__dict__)
        self.builtins["__import__"] = self.import_

    def globals_for(self, module):
        """Makes ``module``'s imports of companion names resolve to this version's modules."""
        if self.table:
            module.__dict__["__builtins__"] = self.builtins

    def get(self, name):
        mod = self.loaded.get(name)
        if mod is not None:
            return mod
        parent = None
        if "." in name:
            parent_name, last = name.rsplit(".", 1)
            parent = self.get(parent_name)
        entry = self.table.get(name)
        mod = types.ModuleType(name)
        if entry is None:
            # A folder without __init__.py: a namespace package.
            mod.__path__ = []
            mod.__package__ = name
            self.loaded[name] = mod
        else:
            rel, source, is_pkg = entry
            mod.__file__ = os.path.join(self.folder, rel)
            mod.__package__ = name if is_pkg else (name.rsplit(".", 1)[0] if "." in name else "")
            if is_pkg:
                mod.__path__ = []
            self.globals_for(mod)
            self.loaded[name] = mod
            try:
                exec(compile(source, mod.__file__, "exec"), mod.__dict__)
            except BaseException:
                self.loaded.pop(name, None)
                raise
        if parent is not None:
            setattr(parent, name.rsplit(".", 1)[1], mod)
        return mod

    def _known(self, name):
        return name in self.table or any(k.startswith(name + ".") for k in self.table)

    def import_(self, name, globals=None, locals=None, fromlist=(), level=0):
        absolute = name
        if level > 0:
            package = (globals or {}).get("__package__")
            if package is None or not (package in self.loaded or self._known(package) or package == ""):
                return _real_import(name, globals, locals, fromlist, level)
            base = package.split(".") if package else []
            if level - 1 > len(base):
                raise ImportError("attempted relative import beyond the __mod/ folder")
            base = base[: len(base) - (level - 1)]
            absolute = ".".join(base + ([name] if name else []))
        if absolute and absolute.split(".")[0] in self.tops and self._known(absolute):
            mod = self.get(absolute)
            for item in fromlist or ():
                sub = f"{absolute}.{item}"
                if item != "*" and self._known(sub):
                    self.get(sub)
            if fromlist or level > 0:
                return mod
            return self.get(absolute.split(".")[0])
        if level > 0 and not absolute:
            raise ImportError("relative import outside a __mod/ package")
        return _real_import(name, globals, locals, fromlist, level)
