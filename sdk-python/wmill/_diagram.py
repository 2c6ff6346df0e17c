"""The workflow diagram of a Python workflow file: ``python3 -m wmill._diagram FILE NAME``.

Prints the same JSON structure as Sluice's TypeScript analyser (``src/diagram/model.ts``): nodes for
the durable calls of ``@workflow main`` (tasks, steps, sleeps, approvals) with the checkpoint keys
the engine will use, structural nodes for ``asyncio.gather`` / ``parallel`` (parallel + join),
``if`` (branch + merge), loops (a group) and ``try`` (try + catch + merge), and edges from ``start``
to ``end``. It reads the source only (``ast``); nothing is imported or run.
"""
import ast
import json
import sys

APPROVAL_KEY = "waitForApproval"


class Analyzer:
    def __init__(self, source, file_name):
        self.source = source
        self.file_name = file_name
        self.nodes = []
        self.edges = []
        self.warnings = []
        self.tasks = {}
        self.counts = {}
        self.structural = {}
        self.ids = set()
        self.parent = None
        self.in_branch = 0

    # -- nodes and edges ---------------------------------------------------------------

    def pos(self, node):
        out = {"line": node.lineno, "column": node.col_offset + 1}
        if getattr(node, "end_lineno", None) is not None:
            out["endLine"] = node.end_lineno
            out["endColumn"] = node.end_col_offset + 1
        return out

    def add(self, kind, label, at, **extra):
        if "key" in extra:
            base = f"{kind}:{extra['key']}"
        else:
            self.structural[kind] = self.structural.get(kind, 0) + 1
            base = f"{kind}:{self.structural[kind]}"
        node_id, n = base, 1
        while node_id in self.ids:
            n += 1
            node_id = f"{base}~{n}"
        self.ids.add(node_id)
        node = {"id": node_id, "kind": kind, "label": label, **(self.pos(at) if at is not None else {"line": 1, "column": 1})}
        if self.parent is not None:
            node["parent"] = self.parent
            node["repeated"] = True
        node.update({k: v for k, v in extra.items() if v is not None})
        if (self.parent is not None or self.in_branch) and "key" in extra:
            node["approximateKey"] = True
        self.nodes.append(node)
        return node_id

    def link(self, frontier, to):
        for src, label in frontier:
            edge = {"from": src, "to": to}
            if label:
                edge["label"] = label
            if edge not in self.edges:
                self.edges.append(edge)
        return [(to, None)]

    def key(self, base):
        n = self.counts.get(base, 0) + 1
        self.counts[base] = n
        return base if n == 1 else f"{base}#{n}"

    def text(self, node):
        return ast.get_source_segment(self.source, node) or ""

    # -- recognising primitives ------------------------------------------------------------

    def literal(self, node):
        try:
            return ast.literal_eval(node)
        except (ValueError, SyntaxError, TypeError):
            return {"$expr": self.text(node)}

    def kwargs(self, call):
        return {k.arg: self.literal(k.value) for k in call.keywords if k.arg} or None

    def name_of(self, func):
        if isinstance(func, ast.Name):
            return func.id
        if isinstance(func, ast.Attribute):
            return func.attr
        return None

    def primitive(self, call):
        """(kind, key base, extra fields) for a durable call, else None."""
        name = self.name_of(call.func)
        if isinstance(call.func, ast.Call) and self.name_of(call.func.func) in ("task_script", "task_flow"):
            inner = call.func
            kind = "script" if self.name_of(inner.func) == "task_script" else "flow"
            path = self.literal(inner.args[0]) if inner.args else None
            base = path if isinstance(path, str) else "?"
            return "task", base, {"taskType": kind, "path": base, "options": self.kwargs(inner)}
        if name in self.tasks:
            return "task", name, {"taskType": "function", "functionName": name, "options": self.tasks[name]}
        if name == "step" and call.args:
            label = self.literal(call.args[0])
            return "step", label if isinstance(label, str) else "?", {}
        if name == "sleep" and call.args:
            return "sleep", "sleep", {"duration": {"value": self.literal(call.args[0]), "unit": "s"}}
        if name == "wait_for_approval":
            return "approval", APPROVAL_KEY, {"options": self.kwargs(call)}
        return None

    def calls_in(self, node):
        """Calls in ``node`` in source order, not looking into lambdas and nested functions."""
        out = []

        def visit(n):
            if isinstance(n, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                return
            if isinstance(n, ast.Call):
                out.append(n)
                if self.is_fanout(n):
                    return
            for child in ast.iter_child_nodes(n):
                visit(child)

        visit(node)
        return out

    def is_fanout(self, call):
        return self.name_of(call.func) in ("gather", "parallel")

    # -- statements -----------------------------------------------------------------------

    def expression(self, node, frontier):
        for call in self.calls_in(node):
            if self.is_fanout(call):
                frontier = self.fanout(call, frontier)
                continue
            found = self.primitive(call)
            if found:
                kind, base, extra = found
                label = base if kind != "approval" else "wait_for_approval"
                frontier = self.link(frontier, self.add(kind, label, call, key=self.key(base), **extra))
        return frontier

    def fanout(self, call, frontier):
        dynamic = self.name_of(call.func) == "parallel"
        label = "parallel" if dynamic else "asyncio.gather"
        opts = self.kwargs(call) if dynamic else None
        par = self.add("parallel", label, call, dynamic=dynamic, options=opts)
        frontier = self.link(frontier, par)
        ends = []
        if dynamic:
            fn = call.args[1] if len(call.args) > 1 else None
            saved, self.parent = self.parent, par
            if isinstance(fn, ast.Lambda):
                ends += self.expression(fn.body, [(par, None)])
            elif isinstance(fn, ast.Name) and fn.id in self.tasks:
                key = self.key(fn.id)
                node_id = self.add("task", fn.id, fn, key=key, taskType="function", functionName=fn.id, options=self.tasks[fn.id])
                ends += self.link([(par, None)], node_id)
            else:
                self.warnings.append({"code": "UNKNOWN_CALLBACK", "message": "parallel() callback not recognised", **self.pos(call)})
            self.parent = saved
        else:
            for arg in call.args:
                target = arg.value if isinstance(arg, ast.Starred) else arg
                if isinstance(arg, ast.Starred) or isinstance(target, (ast.GeneratorExp, ast.ListComp)):
                    saved, self.parent = self.parent, par
                    elt = target.elt if isinstance(target, (ast.GeneratorExp, ast.ListComp)) else target
                    ends += self.expression(elt, [(par, None)])
                    self.parent = saved
                else:
                    ends += self.expression(target, [(par, None)])
        join = self.add("join", "join", None, closes=par)
        self.nodes[-1].update({k: v for k, v in self.pos(call).items()})
        return self.link([e for e in ends if e[0] != par] or [(par, None)], join)

    def block(self, stmts, frontier):
        for st in stmts:
            if not frontier:
                break
            frontier = self.statement(st, frontier)
        return frontier

    def statement(self, st, frontier):
        if isinstance(st, ast.If):
            frontier = self.expression(st.test, frontier)
            br = self.add("branch", self.text(st.test), st.test)
            frontier = self.link(frontier, br)
            self.in_branch += 1
            yes = self.block(st.body, [(br, "true")])
            no = self.block(st.orelse, [(br, "false")]) if st.orelse else [(br, "false")]
            self.in_branch -= 1
            ends = yes + no
            if not ends:
                return []
            merge = self.add("merge", "merge", st, closes=br)
            return self.link(ends, merge)
        if isinstance(st, (ast.For, ast.AsyncFor, ast.While)):
            head = st.iter if not isinstance(st, ast.While) else st.test
            frontier = self.expression(head, frontier)
            label = f"for {self.text(st.target)} in {self.text(st.iter)}" if not isinstance(st, ast.While) else f"while {self.text(st.test)}"
            loop = self.add("loop", label, st)
            frontier = self.link(frontier, loop)
            saved, self.parent = self.parent, loop
            body = self.block(st.body, [(loop, "body")])
            self.parent = saved
            return [e for e in body if e[0] != loop] + [(loop, "done")]
        if isinstance(st, ast.Try):
            tr = self.add("try", "try", st)
            frontier = self.link(frontier, tr)
            ends = self.block(st.body, [(tr, "try")])
            self.in_branch += 1
            for h in st.handlers:
                label = f"except {self.text(h.type)}" if h.type is not None else "except"
                catch = self.add("catch", label, h)
                ends += self.block(h.body, self.link([(tr, "catch")], catch))
            self.in_branch -= 1
            ends = self.block(st.finalbody, ends) if st.finalbody else ends
            if not ends:
                return []
            merge = self.add("merge", "merge", st, closes=tr)
            return self.link(ends, merge)
        if isinstance(st, (ast.With, ast.AsyncWith)):
            return self.block(st.body, frontier)
        if isinstance(st, ast.Return):
            if st.value is not None:
                frontier = self.expression(st.value, frontier)
            ret = self.add("return", "return", st)
            self.link(frontier, ret)
            self.link([(ret, "return")], "end")
            return []
        if isinstance(st, ast.Raise):
            if st.exc is not None:
                frontier = self.expression(st.exc, frontier)
            thr = self.add("throw", self.text(st.exc) if st.exc else "raise", st)
            self.link(frontier, thr)
            self.link([(thr, "error")], "end")
            return []
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)):
            return frontier
        return self.expression(st, frontier)

    # -- the module -----------------------------------------------------------------------

    def decorator(self, dec):
        target = dec.func if isinstance(dec, ast.Call) else dec
        return self.name_of(target), dec

    def run(self):
        tree = ast.parse(self.source, self.file_name)
        main = None
        for st in tree.body:
            if not isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for dec in st.decorator_list:
                name, node = self.decorator(dec)
                if name == "task":
                    opts = self.kwargs(node) if isinstance(node, ast.Call) else None
                    if opts:
                        opts.pop("path", None)
                    self.tasks[st.name] = opts or None
                if name == "workflow" and st.name == "main":
                    main = st
        self.ids.update({"start", "end"})
        self.nodes.append({"id": "start", "kind": "start", "label": "start", "line": 1, "column": 1})
        entry = None
        if main is None:
            self.warnings.append({"code": "NO_WORKFLOW", "message": "no main decorated with @workflow in this file"})
            frontier = [("start", None)]
        else:
            entry = {
                "name": "main",
                "dialect": "windmill",
                "params": [a.arg for a in main.args.args + main.args.kwonlyargs],
                **{k: v for k, v in self.pos(main).items() if k in ("line", "column")},
            }
            frontier = self.block(main.body, [("start", None)])
        end_at = {"line": (main.end_lineno if main is not None else 1), "column": 1}
        self.nodes.append({"id": "end", "kind": "end", "label": "end", **end_at})
        self.link(frontier, "end")
        return {
            "version": 1,
            "fileName": self.file_name,
            "workflow": entry,
            "nodes": self.nodes,
            "edges": self.edges,
            "warnings": self.warnings,
        }


def main(argv):
    path, name = argv[0], argv[1] if len(argv) > 1 else argv[0]
    with open(path, encoding="utf-8") as f:
        source = f.read()
    try:
        out = Analyzer(source, name).run()
    except SyntaxError as err:
        out = {"error": {"message": f"SyntaxError: {err.msg}", "line": err.lineno}}
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
