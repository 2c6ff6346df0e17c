"""Tells Sluice's pipeline graph which lake tables Python scripts write and read through the
``ducklake()`` helpers: ``python3 -m wmill._lake_calls`` with ``[{"path", "source"}, ...]`` as
JSON on stdin.

Parses each source with Python's own ``ast`` (nothing is imported or run) and prints one JSON
object keyed by path: ``{"detections": [{"uri", "access", "line", "via"}], "dynamic": [{"line",
"via"}], "clients": ["ducklake://<lake>"], "warnings": [{"line", "code", "message"}]}``.

A client is a call ``ducklake("shop")`` / ``wmill.ducklake()`` (lake ``main``) or a name
assigned one; ``upsert_partition`` / ``append_partition`` on it write ``ducklake://<lake>/<table>``
and ``read`` reads it. Names are matched without scopes: a name bound to clients of two lakes
is not followed. A lake or table that is not a string literal is only known at run time.
"""
import ast
import json
import sys

HELPERS = {
    "upsert_partition": "write",
    "append_partition": "write",
    "upsertPartition": "write",
    "appendPartition": "write",
    "read": "read",
}
COMPUTED = object()


def literal(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def argument(call, index, keyword):
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    return call.args[index] if len(call.args) > index else None


def client_lake(node):
    """The lake a ``ducklake(...)`` call opens, COMPUTED for a computed name, None for no such call."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    named = (isinstance(func, ast.Name) and func.id == "ducklake") or (
        isinstance(func, ast.Attribute) and func.attr == "ducklake"
    )
    if not named:
        return None
    arg = argument(node, 0, "name")
    if arg is None:
        return "main"
    value = literal(arg)
    return COMPUTED if value is None else value


def findings(source, path):
    out = {"detections": [], "dynamic": [], "clients": [], "warnings": []}
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as err:
        out["warnings"].append(
            {
                "line": err.lineno or 0,
                "code": "DETECT_SYNTAX_ERROR",
                "message": "Python cannot parse this script (%s), so its ducklake() writes are not in the graph; fix the syntax error"
                % (err.msg,),
            }
        )
        return out
    bound = {}
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = [t for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            targets = [node.target]
        lake = client_lake(node.value) if targets else None
        if lake is not None:
            for t in targets:
                bound.setdefault(t.id, set()).add(lake)

    def lake_of(node):
        direct = client_lake(node)
        if direct is not None:
            return direct
        if isinstance(node, ast.Name):
            lakes = bound.get(node.id, set())
            if len(lakes) == 1:
                return next(iter(lakes))
        return None

    clients = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        access = HELPERS.get(node.func.attr)
        lake = lake_of(node.func.value) if access else None
        if lake is None or lake is COMPUTED:
            continue
        via = "ducklake().%s" % node.func.attr
        base = "ducklake://%s" % lake
        if base not in clients:
            clients.append(base)
        table = literal(argument(node, 0, "table"))
        if table is None:
            out["dynamic"].append({"line": node.lineno, "via": via})
        else:
            out["detections"].append({"uri": "%s/%s" % (base, table), "access": access, "line": node.lineno, "via": via})
    out["clients"] = clients
    out["detections"].sort(key=lambda d: d["line"])
    out["dynamic"].sort(key=lambda d: d["line"])
    return out


def main():
    files = json.load(sys.stdin)
    result = {f["path"]: findings(f["source"], f["path"]) for f in files}
    sys.stdout.write(json.dumps(result))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
